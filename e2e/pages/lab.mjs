// The lab's page object (lab/: the widget's form and runs, with the history, the summary,
// the charts, import and export, share links and the experiments). Everything the widget's
// page object does works here too; this adds what only the lab has.
import assert from 'node:assert/strict';
import { WidgetPage } from './widget.mjs';

export class LabPage extends WidgetPage {
  static PATH = 'lab/';

  // The history and the summary.

  /** The history list's items (newest first). */
  get historyItems() {
    return this.byTestId('history-item');
  }

  /** The summary table's run count for `cohort` (all, cold, warm): 0 when it has no row. */
  async summaryCount(cohort) {
    const cell = this.locator(`[data-testid=summary-table] tr[data-cohort=${cohort}][data-metric=ttfa_ms] td`).last();
    return (await cell.count()) ? Number(await cell.textContent()) : 0;
  }

  // Import and export.

  /** Clicks the export button `testId` (export-json, export-csv, chart-…-svg, …); resolves to the downloaded file's path. */
  async download(testId) {
    return this.page.download(() => this.byTestId(testId).click());
  }

  /** Imports `file` (a path, or `{ name, buffer }`) into the history. */
  async importFile(file) {
    await this.byTestId('import-json').setInputFiles(file);
  }

  // Experiments.

  /**
   * Points the form at `model`, chooses the experiment `kind`, fills its parameter fields
   * (test id → value) and starts it.
   */
  async startExperiment({ model, kind, fields = {} }) {
    await this.fill({ model });
    await this.byTestId('exp-kind').selectOption(kind);
    for (const [testId, value] of Object.entries(fields)) {
      await this.byTestId(testId).fill(value);
    }
    await this.byTestId('exp-run').click();
  }

  /**
   * Waits until the experiment has ended as `state` (done / stopped / refused). If it ends
   * otherwise, or not within `timeout`, the error says where it stood: its state, runs done of
   * planned, its status line and the states of the runs of its table (a run that never
   * finished, or the experiment never leaving "preparing", reads differently from a slow one).
   */
  async waitForExperimentEnd(state = 'done', timeout = 60_000) {
    const deadline = Date.now() + timeout;
    const ended = ['done', 'stopped', 'refused'];
    for (;;) {
      const where = await this.evaluate(() => {
        const progress = document.querySelector('[data-testid="exp-progress"]');
        const rows = [...document.querySelectorAll('[data-testid="exp-table"] tbody tr')];
        return {
          state: progress?.dataset.state ?? '(no progress element)',
          done: progress?.dataset.done,
          planned: progress?.dataset.planned,
          status: progress?.textContent?.trim(),
          rows: rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent.trim()).join(' | ')),
          inputError: document.querySelector('[data-testid="exp-input-error"]')?.textContent?.trim(),
          notes: document.querySelector('[data-testid="exp-notes"]')?.textContent?.trim(),
        };
      }).catch((error) => ({ state: `(page not readable: ${error.message})` }));
      if (where.state === state) return;
      if (ended.includes(where.state) || Date.now() >= deadline) {
        const why = ended.includes(where.state) ? `ended as ${where.state}` : `not ended within ${timeout} ms`;
        assert.fail(`experiment expected to end as ${state}, ${why}: ${JSON.stringify(where, null, 1)}`);
      }
      await this.page.waitForTimeout(100);
    }
  }

  /** A data-* attribute of the experiment's report, as a number; it must be set. */
  async reportNumber(name) {
    const value = await this.byTestId('exp-report').getAttribute(`data-${name}`);
    assert.ok(value !== null && value !== '', `data-${name} is set`);
    return Number(value);
  }

  /** The code of the experiment's verdict. */
  async verdict() {
    return this.byTestId('exp-verdict').getAttribute('data-verdict');
  }

  /** The codes of every verdict of the experiment. */
  async verdicts() {
    return (await this.byTestId('exp-verdict').getAttribute('data-verdicts')).split(' ');
  }

  /** The experiment table's rows. */
  get experimentRows() {
    return this.byTestId('exp-table').locator('tbody tr');
  }

  /** The experiment table's cells, row by row, as shown. */
  async experimentCells() {
    return this.experimentRows.evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
  }
}
