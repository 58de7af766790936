// Page tests of what every family view shares (one component, `panels/family_view.rs`): the
// same controls under each view's fields, a field error shown in the view's own alert, a
// share link hidden once the fields ask for something else, and Cancel stopping a run (one
// worker, or the SF sweep's pool) with a notice. The release build in dist/ is required
// (`trunk build --release --offline`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSuite, assertCleanPages, assertOnView } from './harness.mjs';

const { open, pages } = pageSuite();

const VIEWS = ['sf', 'scjg', 'ses', 'kkor', 'paper'];

test('every family view has the same controls, in the same order', async () => {
  for (const id of VIEWS) {
    const page = await open(`#/${id}`);
    await assertOnView(page, id);
    const controls = await page.$$eval(`#view-${id} section > .run > *`, (els) => els.map((e) => [e.tagName, e.dataset.testid]));
    assert.deepEqual(controls, [
      ['BUTTON', `${id}-run`], ['BUTTON', `${id}-cancel`], ['BUTTON', `${id}-share`],
      ['PROGRESS', `${id}-progress`], ['SPAN', `${id}-status`],
    ], id);
    assert.equal(await page.$eval(`[data-testid=${id}-cancel]`, (b) => b.disabled), true, `${id}: nothing to cancel`);
    // Before a run, Export for a cluster says to run first.
    assert.ok(await page.$(`#view-${id} [data-testid=cluster-export-after-run]`), `${id}: export note before a run`);
  }
});

test('a field the view cannot read is named in its own alert, and Share waits for it', async () => {
  const page = await open('#/kkor');
  await assertOnView(page, 'kkor');
  await page.fill('#kkor-seeds', '0');
  await page.press('#kkor-seeds', 'Tab');
  await page.click('[data-testid=kkor-share]');
  assert.match(await page.textContent('[data-testid=kkor-error]'), /seeds: '0' is not a whole number in 1\.\.1000/);
  assert.equal(await page.$('[data-testid=kkor-share-url]'), null);
  assert.equal(await page.$('[data-testid=ses-error]'), null, 'only the KKOR view says so');
});

test('the report card hides its link once the fields ask for another run', async () => {
  const page = await open('#/paper');
  await assertOnView(page, 'paper');
  await page.click('[data-testid=paper-share]');
  assert.match(await page.textContent('[data-testid=paper-share-url]'), /#f2=/);
  await page.selectOption('[data-testid=paper-select]', { label: 'kkor' });
  await page.waitForSelector('[data-testid=paper-share-url]', { state: 'detached' });
});

test('Cancel stops a family run and an SF sweep\'s pool, each with its notice', async () => {
  const page = await open('#/ses');
  await assertOnView(page, 'ses');
  await page.fill('#ses-seeds', '200');
  await page.press('#ses-seeds', 'Tab');
  await page.click('[data-testid=ses-run]');
  await page.waitForFunction(() => /running…/.test(document.querySelector('[data-testid=ses-status]').textContent));
  await page.click('[data-testid=ses-cancel]');
  assert.match(await page.textContent('[data-testid=ses-notice]'), /^Cancelled after \d+ of \d+ steps\.$/);
  assert.equal(await page.$eval('[data-testid=ses-cancel]', (b) => b.disabled), true);

  await page.click('[data-testid=tab-sf]');
  await assertOnView(page, 'sf');
  for (const [sel, v] of [['#sf-seeds', '50'], ['#sf-batches', '30000']]) { await page.fill(sel, v); await page.press(sel, 'Tab'); }
  await page.click('[data-testid=sf-run]');
  await page.waitForFunction(() => /running… \d+ of \d+ simulations/.test(document.querySelector('[data-testid=sf-status]').textContent));
  await page.click('[data-testid=sf-cancel]');
  assert.match(await page.textContent('[data-testid=sf-notice]'), /^Sweep cancelled after \d+ of \d+ simulations\.$/);
  assertCleanPages(pages, 8);
});
