/**
 * Config reload (SIGHUP, or the file changing): the new file is loaded and validated in full
 * before anything changes. A bad file is refused with one log line naming what is wrong, and
 * the running config stays; a good one is handed to `apply`, which swaps what new requests see
 * while open streams finish on what they started with. Reloads never overlap: one asked for
 * while another runs is done once after it.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';

export interface ReloadLog {
  info(message: string): void;
  error(message: string): void;
}

export interface ConfigReloaderOptions {
  /** Reads and validates the file; throws with a message naming each bad field. */
  load(): Promise<Config>;
  /** Puts a validated config in force. */
  apply(config: Config): void | Promise<void>;
  log: ReloadLog;
}

export type ReloadOutcome = { ok: true; config: Config } | { ok: false; error: string };

export interface ConfigReloader {
  reload(): Promise<ReloadOutcome>;
  /**
   * Reloads when the file changes (editors replace files, so the directory is watched). Returns
   * a function that stops watching.
   */
  watchFile(file: string, debounceMs?: number): () => void;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function createConfigReloader(options: ConfigReloaderOptions): ConfigReloader {
  let running: Promise<ReloadOutcome> | undefined;
  let again: Promise<ReloadOutcome> | undefined;

  async function once(): Promise<ReloadOutcome> {
    let config: Config;
    try {
      config = await options.load();
    } catch (err) {
      const error = describe(err);
      options.log.error(`config reload refused, the running config stays: ${error}`);
      return { ok: false, error };
    }
    try {
      await options.apply(config);
    } catch (err) {
      const error = describe(err);
      options.log.error(`config reload failed to apply, the running config stays: ${error}`);
      return { ok: false, error };
    }
    options.log.info(`config reloaded: ${config.backends.length} backend(s): ${config.backends.map((b) => b.name).join(', ')}`);
    return { ok: true, config };
  }

  function reload(): Promise<ReloadOutcome> {
    if (running === undefined) {
      running = once().finally(() => {
        running = undefined;
      });
      return running;
    }
    // A reload is running with what the file held before: run once more after it, and let every
    // caller asking meanwhile share that one.
    again ??= running.then(() => {
      again = undefined;
      return reload();
    });
    return again;
  }

  return {
    reload,
    watchFile(file, debounceMs = 200) {
      const directory = path.dirname(path.resolve(file));
      const base = path.basename(file);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const watcher: FSWatcher = watch(directory, (_event, changed) => {
        if (changed !== null && changed !== base) return;
        // Editors write in several steps: wait until the writes settle.
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = undefined;
          void reload();
        }, debounceMs);
      });
      watcher.on('error', (err) => options.log.error(`config file watch stopped: ${describe(err)}`));
      return () => {
        if (timer !== undefined) clearTimeout(timer);
        watcher.close();
      };
    },
  };
}
