// Page test of the "Step through" panel on the release build in dist/: the demo scenario's
// EASY run at its one site, frame by frame, forward and back, with the reason each job
// started (head of the queue or backfilled), computed in the page's engine worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSuite, assertCleanPages } from './harness.mjs';

const { open, pages } = pageSuite();

test('the step view walks one site of a run forward and back and says why each job started', async () => {
  const page = await open();
  await page.waitForSelector('[data-testid=steps]');
  await page.click('[data-testid=steps] summary');
  // The demo's runs are fcfs, easy, conservative, sjf, firstfit: take EASY.
  await page.selectOption('[data-testid=steps-alg]', '1');
  await page.click('[data-testid=steps-run]');
  await page.waitForSelector('[data-testid=steps-frame]', { timeout: 60_000 });
  const position = () => page.textContent('[data-testid=steps-position]');
  assert.match(await position(), /instant 1 of \d+/);
  const events = () => page.textContent('[data-testid=steps-events]');
  assert.match(await events(), /started: head of the queue/);
  // Forward until EASY backfills a job: a few steps by the button, then the slider, inside
  // the page (one round trip), checking at every instant that no unit is over-used.
  for (let i = 0; i < 3; i++) await page.click('[data-testid=steps-next]');
  assert.match(await position(), /instant 4 of/);
  const found = await page.evaluate(async () => {
    const range = document.querySelector('[data-testid=steps] input[type=range]');
    const max = Number(range.max);
    for (let i = 0; i <= max; i++) {
      range.value = String(i);
      range.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 0));
      const frame = document.querySelector('[data-testid=steps-frame]');
      const [, free, cap] = frame.querySelector('p').textContent.match(/(\d+) of (\d+) units free/);
      if (Number(free) > Number(cap)) return { bad: frame.textContent };
      const ev = document.querySelector('[data-testid=steps-events]').textContent;
      if (/backfilled/.test(ev)) return { at: i, ev };
    }
    return { none: max };
  });
  assert.ok(found.at !== undefined, JSON.stringify(found));
  const seen = found.ev;
  assert.match(seen, /backfilled — (ends \(by its estimate\)|runs past the head's shadow time)/);
  assert.match(await page.textContent('[data-testid=steps-head]'), /Head: /);
  // And back: the previous instant comes again, earlier in time.
  const t = Number(await page.getAttribute('[data-testid=steps-frame]', 'data-time'));
  await page.click('[data-testid=steps-prev]');
  const back = Number(await page.getAttribute('[data-testid=steps-frame]', 'data-time'));
  assert.ok(back < t, `back ${back} < ${t}`);
  // A site the platform does not have is refused with a message, not a crash.
  await page.fill('[data-testid=steps-site]', '7');
  await page.press('[data-testid=steps-site]', 'Tab');
  await page.click('[data-testid=steps-run]');
  await page.waitForSelector('[data-testid=steps-error]');
  assert.match(await page.textContent('[data-testid=steps-error]'), /no site 7/);
  assertCleanPages(pages, 1);
});
