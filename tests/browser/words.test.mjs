// Page tests of issue #38's words on the release build in dist/: a damaged link says so in
// plain words (not "cannot inflate: corrupt deflate stream"), a binary file is not "read as
// sacct", an unknown job id is not called an invalid scenario, and a damaged link of any
// kind says what is wrong and what opened instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSuite, assertCleanPages, dropFiles, waitResults } from './harness.mjs';

const { open, pages } = pageSuite();

test('a link whose packed part does not unpack says so in plain words', async () => {
  const page = await open('#s1=AAAAAAAA');
  await page.waitForSelector('[data-testid=error]');
  const text = await page.textContent('[data-testid=error]');
  assert.match(text, /damaged: its packed part does not unpack, so it was probably cut short or changed when it was copied/);
  assert.doesNotMatch(text, /cannot inflate/);
  await waitResults(page, 5);
});

test('a binary file is refused as no trace, not read as sacct', async () => {
  const page = await open();
  await waitResults(page, 5);
  // PNG-like bytes with a "|" among them: once detected as sacct by the "|".
  const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0x7c, 1, 2, 0x7c, 0x49, 0x48, 0x44, 0x52, 0, 0, 0x7c, 3]);
  await dropFiles(page, [{ name: 'picture.png', bytes }]);
  await page.waitForSelector('[data-testid=error]');
  const text = await page.textContent('[data-testid=error]');
  assert.match(text, /Cannot use picture\.png/);
  assert.doesNotMatch(text, /sacct/);
});

test('an unknown job id is said as such, not as an invalid scenario', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.fill('[data-testid=steps-job]', '987654');
  await page.press('[data-testid=steps-job]', 'Tab');
  await page.click('[data-testid=steps-why]');
  await page.waitForSelector('[data-testid=steps-error]', { timeout: 30_000 });
  const text = await page.textContent('[data-testid=steps-error]');
  assert.match(text, /^no job 987654 in workload/);
  assert.doesNotMatch(text, /invalid scenario/);
});

test('a damaged SF sweep link or a link of an unknown kind says what is wrong and what opened instead', async () => {
  for (const [hash, msg] of [
    ['#w1=not*base64!', /^This SF sweep link cannot open: the share link is damaged.*\. The page opened the scheduling view with its demo scenario instead\.$/],
    ['#w1=AAAAAAAA', /^This SF sweep link cannot open: .*demo scenario instead\.$/],
    ['#q3=abc', /^This link \('q3=…'\) is of a kind this page does not read .*demo scenario instead\.$/],
    ['#f1=not*base64!', /^This family link cannot open: the share link is damaged.*demo scenario instead\.$/],
  ]) {
    const page = await open(hash);
    await page.waitForSelector('[data-testid=link-error]');
    assert.match((await page.textContent('[data-testid=link-error]')).trim(), msg, hash);
    await waitResults(page, 5);
  }
  assertCleanPages(pages, 7);
});
