/**
 * `npm start`'s Ctrl-C: everything it started, stopped in reverse order, then exit. One Ctrl-C arrives more than
 * once (the terminal signals the whole process group, and npm and tsx relay it to the script again), so signals this
 * soon after the first are the same Ctrl-C. A later one skips the rest, but never the Temporal dev server: it runs
 * in a session of its own, and left running it would hold port 7233 and its SQLite file for the next start.
 */
import { log } from './paths';

export type Stop = () => Promise<unknown>;

export const SAME_SIGNAL_MS = 2_000;

export class Shutdown {
  private readonly stops: Stop[] = [];
  private stopTemporal: Stop = async () => undefined;
  private since: number | undefined;

  constructor(
    private readonly exit: (code: number) => void = (code) => process.exit(code),
    private readonly now: () => number = Date.now,
  ) {}

  get started(): boolean {
    return this.since !== undefined;
  }

  /** Something started: stopped on shutdown (at once when the shutdown has begun already). */
  add(stop: Stop): void {
    if (this.started) void stop();
    else this.stops.push(stop);
  }

  /** The Temporal dev server's stop, which a second Ctrl-C still runs. */
  addTemporal(stop: Stop): void {
    this.stopTemporal = stop;
    this.add(stop);
  }

  async run(code: number): Promise<void> {
    if (this.since !== undefined) {
      if (this.now() - this.since < SAME_SIGNAL_MS) return;
      log('second Ctrl-C: stopping the Temporal dev server only, then exiting');
      await this.stopTemporal().catch((error) => log(`while stopping: ${error}`));
      return this.exit(code);
    }
    this.since = this.now();
    log('stopping…');
    for (const stop of this.stops.reverse()) await stop().catch((error) => log(`while stopping: ${error}`));
    this.exit(code);
  }
}
