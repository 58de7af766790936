// Page tests of the charts themselves: the hover tooltip over each canvas and the PNG export
// (release build in dist/: `trunk build --release --offline` first):   node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { waitResults, pageSuite, assertCleanPages } from './harness.mjs';

const { open, pages } = pageSuite();

/** The tooltip of chart `id`: its text, and its box when shown (null when hidden). */
function tooltip(page, id) {
  return page.$eval(`[data-testid=${id}-hover]`, (t) => {
    const r = t.getBoundingClientRect();
    const shown = getComputedStyle(t).display !== 'none' && r.width > 0 && r.height > 0;
    return { text: t.textContent, box: shown ? { x: r.x, y: r.y, width: r.width, height: r.height } : null };
  });
}

test('hovering a chart shows a tooltip with the numbers under the pointer, beside the pointer', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.waitForTimeout(300);
  // The old text line under each chart is gone: the tooltip is the only read-out.
  assert.equal(await page.$$eval('output.hover', (o) => o.length), 0);
  for (const id of ['chart-bars', 'chart-cdf', 'chart-util', 'chart-queue', 'chart-gantt']) {
    assert.equal((await tooltip(page, id)).box, null, `${id}: tooltip shown before any hover`);
  }

  const cdf = page.locator('[data-testid=chart-cdf]');
  await cdf.scrollIntoViewIfNeeded();
  const box = await cdf.boundingBox();
  const at = { x: box.width * 0.3, y: box.height * 0.5 };
  await cdf.hover({ position: at });
  await page.waitForFunction(() => /^waiting at most \S+: fcfs [\d.]+ %, easy [\d.]+ %/.test(document.querySelector('[data-testid=chart-cdf-hover]').textContent));
  const tip = await tooltip(page, 'chart-cdf');
  console.log(`# wait CDF tooltip: ${tip.text}`);
  assert.ok(tip.box, 'the tooltip is shown');
  // Absolutely positioned over the chart, just right of and below the pointer.
  const px = box.x + at.x;
  const py = box.y + at.y;
  assert.ok(tip.box.x > px && tip.box.x < px + 40, `tooltip x ${tip.box.x}, pointer ${px}`);
  assert.ok(tip.box.y > py && tip.box.y < py + 40, `tooltip y ${tip.box.y}, pointer ${py}`);
  // In the chart's right half it opens to the left of the pointer.
  const right = { x: box.width * 0.9, y: box.height * 0.5 };
  await cdf.hover({ position: right });
  await page.waitForTimeout(100);
  const flipped = await tooltip(page, 'chart-cdf');
  assert.ok(flipped.box && flipped.box.x + flipped.box.width < box.x + right.x, 'tooltip flips left of the pointer');
  // Leaving the chart hides it.
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => document.querySelector('[data-testid=chart-cdf-hover]').textContent === '');
  assert.equal((await tooltip(page, 'chart-cdf')).box, null);

  // Every chart of the demo has numbers under the pointer.
  const expect = {
    'chart-bars': /^(fcfs|easy): Average wait [\d,.]+ = [\d.]+ × fcfs$/,
    'chart-util': /^day [\d.]+: cluster [\d.]+ %$/,
    'chart-queue': /^day [\d.]+: cluster [\d.]+ jobs$/,
    'chart-gantt': /job \d+: start [\d.]+ h|idle/,
  };
  for (const [id, re] of Object.entries(expect)) {
    const c = page.locator(`[data-testid=${id}]`);
    const b = await c.boundingBox();
    await c.hover({ position: { x: b.width * 0.3, y: b.height * 0.6 } });
    await page.waitForFunction(([id, re]) => new RegExp(re).test(document.querySelector(`[data-testid=${id}-hover]`).textContent), [id, re.source]);
    assert.ok((await tooltip(page, id)).box, `${id}: tooltip shown`);
  }
});

test("the SF panel's charts have tooltips too", async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-sf]');
  const alloc = page.locator('[data-testid=chart-alloc]');
  await alloc.scrollIntoViewIfNeeded();
  const a = await alloc.boundingBox();
  await alloc.hover({ position: { x: a.width * 0.5, y: a.height * 0.5 } });
  await page.waitForFunction(() => /^resource \d+ \(μ = [\d.]+\): OWA α [\d.]+, WW α [\d.]+$/.test(document.querySelector('[data-testid=chart-alloc-hover]').textContent));
  await page.selectOption('[data-testid=sf-preset]', { label: 'sf-heterogeneity' });
  for (const [sel, v] of [['#sf-seeds', '2'], ['#sf-batches', '1000']]) { await page.fill(sel, v); await page.press(sel, 'Tab'); }
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  await page.waitForTimeout(300);
  const sweep = page.locator('[data-testid=chart-sweep]');
  await sweep.scrollIntoViewIfNeeded();
  const s = await sweep.boundingBox();
  await sweep.hover({ position: { x: s.width * 0.5, y: s.height * 0.5 } });
  await page.waitForFunction(() => /= [\d.]+: \w+ [\d.,]+ s \(band [\d.,]+ – [\d.,]+\)/.test(document.querySelector('[data-testid=chart-sweep-hover]').textContent));
});

test('each chart saves as a PNG image', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.waitForTimeout(300);
  for (const id of ['chart-bars', 'chart-cdf', 'chart-gantt']) {
    await page.hover(`[data-testid=${id}]`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${id}-png]`)]);
    assert.match(download.suggestedFilename(), /^gridscope-.+\.png$/);
    const bytes = fs.readFileSync(await download.path());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${id}: not a PNG`);
    assert.ok(bytes.length > 2000, `${id}: PNG of ${bytes.length} bytes`);
  }
});

test('no request left 127.0.0.1 and nothing was logged as an error (chart pages)', () => {
  assertCleanPages(pages, 2);
});
