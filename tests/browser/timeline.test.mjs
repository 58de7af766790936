// Issue #38's small things a reader trips on: the Gantt chart's "later ▶" stops at the
// end of the run, and the preset selector stops naming a preset once the scenario is no
// longer that preset's. Needs `trunk build --release --offline`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSuite, assertCleanPages, waitResults } from './harness.mjs';

const { open, pages } = pageSuite();

/** The Gantt window's hours, as the controls print them ("a h – b h"). */
async function windowHours(page) {
  const text = await page.locator('[data-testid=gantt-later]').locator('xpath=..').textContent();
  const m = text.match(/([\d.]+) h – ([\d.]+) h/);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

test('the Gantt chart pans no later than the end of the run, and no earlier than its start', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.waitForSelector('[data-testid=gantt-later]');
  // The demo opens on the whole run: nothing later, nothing earlier.
  assert.ok(await page.isDisabled('[data-testid=gantt-later]'), 'later ▶ pans past the end');
  assert.ok(await page.isDisabled('[data-testid=gantt-earlier]'));
  const [, end] = await windowHours(page);
  await page.click('text=zoom in');
  await page.click('text=zoom in');
  for (let i = 0; i < 20 && !(await page.isDisabled('[data-testid=gantt-later]')); i++) {
    await page.click('[data-testid=gantt-later]');
  }
  assert.ok(await page.isDisabled('[data-testid=gantt-later]'), 'later ▶ never reached the end');
  const [from, to] = await windowHours(page);
  assert.equal(to, end, `the window ends at ${to} h, the run at ${end} h`);
  assert.ok(from > 0 && from < to);
  assert.ok(!(await page.isDisabled('[data-testid=gantt-earlier]')));
});

test('the preset selector names a preset only while the scenario is that preset', async () => {
  const page = await open();
  await waitResults(page, 5);
  assert.equal(await page.inputValue('[data-testid=scenario-preset]'), 'demo');
  await page.fill('#f-jobs', '1500');
  await page.press('#f-jobs', 'Tab');
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario-preset]').value === '');
  assert.match(await page.textContent('[data-testid=scenario-preset]'), /\(your scenario, from demo\)/);
  assert.match(await page.textContent('[data-testid=preset-description]'), /Changed from the preset demo/);
  // Back to 2,000 jobs: the demo again, by value.
  await page.fill('#f-jobs', '2000');
  await page.press('#f-jobs', 'Tab');
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario-preset]').value === 'demo');
  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-light');
  assert.match(await page.textContent('[data-testid=preset-description]'), /SOB Table 6's light/);
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 2);
});
