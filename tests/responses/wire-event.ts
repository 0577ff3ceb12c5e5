/** A Responses stream event as a test reads it: its type, its sequence number, any field by name. */
export type WireEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** A field of an event, typed (svir's ResponsesEvent) or parsed off the wire. */
export function field(event: object | undefined, key: string): unknown {
  return event === undefined ? undefined : Reflect.get(event, key);
}
