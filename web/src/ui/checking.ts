// Checking the shown history: the levels to run (?levels=), the time budget, one whole check at a
// time (a new one supersedes the last), one level again, cancelling. The verdicts are this
// controller's (results, reset by each load); the results page draws them as they come
// (CheckingView). The page's one Checker (check/checker.ts, the workers) is held here.
import { Checker } from '../check/checker';
import type { LevelInfo } from '../core/types';
import type { LevelState } from '../model/levels';
import { toast } from '../dom/dom';
import type { UrlState } from './url-state';

/** Anomalies a level reports in a whole check (a level checked again may ask for more). */
const ANOMALIES_PER_LEVEL = 5;

/** What draws the verdicts (the results page). */
export interface CheckingView {
  /** a check started or ended (Check again and Cancel follow) */
  running(on: boolean): void;
  /** a level of the whole check changed: results[level] is state */
  levelChanged(level: string, state: LevelState): void;
  /** a level checked again on its own changed */
  levelRechecked(level: string): void;
  /** the whole check ended, not superseded; levels: those it ran */
  checkEnded(levels: string[]): void;
}

export class Checking {
  readonly checker = new Checker(true);
  /** the time budget per level, in seconds (the results page's Budget field) */
  budgetS = 30;
  private levelInfos: LevelInfo[] = [];
  private verdicts: Record<string, LevelState> = {};
  /** counts the whole checks begun: a superseded check's updates are dropped */
  private runId = 0;

  /** view: the page that draws the verdicts */
  constructor(private readonly url: UrlState, private readonly view: () => CheckingView) {}

  /** Each level's state so far (the loaded history's). */
  get results(): Record<string, LevelState> { return this.verdicts; }
  /** The loaded history's levels (the core's order; whether each applies). */
  get infos(): LevelInfo[] { return this.levelInfos; }
  get isRunning(): boolean { return this.checker.isRunning; }
  get budgetMs(): number { return Math.round(this.budgetS * 1000); }

  /** A new input: no verdicts yet. */
  reset() { this.verdicts = {}; }

  /** Asks the loaded history's levels of the core (rejects when the checker fails). */
  async readLevels() { this.levelInfos = await this.checker.levels(); }

  /** The levels the ladder shows: exactly those asked for with ?levels=, else every level. */
  known(): string[] {
    const set = this.url.wantedLevels();
    return this.levelInfos.filter((i) => !set || set.has(i.level.toUpperCase())).map((i) => i.level);
  }

  private levelsToRun(): string[] {
    const set = this.url.wantedLevels();
    return this.levelInfos.filter((i) => i.applies && (!set || set.has(i.level.toUpperCase()))).map((i) => i.level);
  }

  /** Checks every level asked for, one at a time, in the background worker. */
  async run() {
    const id = ++this.runId;
    for (const i of this.levelInfos) if (!i.applies) this.verdicts[i.level] = { verdict: 'n/a', reason: i.reason ?? 'does not apply' };
    const levels = this.levelsToRun();
    const view = this.view();
    view.running(true);
    // lets tests (and a profiler) tell the check's main-thread work from the page's start-up
    performance.mark('isoscope:check-start');
    await this.checker.run({
      levels, budgetMs: this.budgetMs, maxAnomalies: ANOMALIES_PER_LEVEL,
      onUpdate: (level, st) => {
        if (id !== this.runId) return;
        this.verdicts[level] = st;
        view.levelChanged(level, st);
      },
    });
    if (id !== this.runId) return;
    view.running(false);
    view.checkEnded(levels);
    document.body.dataset.checked = 'true';
  }

  /** Checks one level again (a new budget, after a cancel), reporting up to maxAnomalies anomalies. */
  async recheck(level: string, maxAnomalies: number) {
    const view = this.view();
    view.running(true);
    await this.checker.run({
      levels: [level], budgetMs: this.budgetMs, maxAnomalies,
      onUpdate: (l, st) => {
        this.verdicts[l] = st;
        view.levelRechecked(l);
      },
    });
    view.running(false);
  }

  cancel() {
    this.checker.cancel('cancelled');
    toast('Check cancelled');
  }
}
