/**
 * A promise a test opens by hand: the fake upstream waits on it before it fails a stream, so
 * the failure comes once the client has seen the partial answer, and not by a timer.
 */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

export function createGate(): Gate {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
