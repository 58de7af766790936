// Shared helpers of the page tests: a static server for dist/ on 127.0.0.1 (random port)
// and a headless system Chromium driven by playwright-core. Not a test file itself.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = process.env.GRIDSCOPE_DIST || path.join(repoRoot, 'dist');
export const traces = path.join(repoRoot, '..', 'shared', 'traces');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
};

/** Serves `root` on 127.0.0.1 at a random port; resolves to { url, setDown, close }. */
export function serve(root = dist) {
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    throw new Error(`${root}/index.html is missing: run \`trunk build --release --offline\` first`);
  }
  // While `down`, every connection is dropped, as when the network is gone.
  let down = false;
  const server = http.createServer((req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url, 'http://x');
    let p = path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
    if (p.endsWith('/')) p += 'index.html';
    const file = path.join(root, p);
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/`,
        setDown: (d) => { down = d; },
        close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }),
      });
    });
  });
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/**
 * A new page (`options` for its browser context) that records console errors, page errors and every request that leaves
 * 127.0.0.1 (in `page.problems`).
 */
export async function newPage(browser, options = {}) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  page.problems = { console: [], errors: [], offsite: [] };
  page.on('console', (m) => { if (m.type() === 'error') page.problems.console.push(m.text()); });
  page.on('pageerror', (e) => page.problems.errors.push(String(e)));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (['data:', 'blob:'].includes(u.protocol)) return;
    if (u.hostname !== '127.0.0.1') page.problems.offsite.push(r.url());
  });
  return page;
}

/** Waits until the results table has `n` rows and no run is going on; returns the rows. */
export async function waitResults(page, n, timeout = 60_000) {
  await page.waitForFunction((n) => {
    const rows = document.querySelectorAll('[data-testid=results] tbody tr');
    return rows.length === n && document.querySelector('[data-testid=report-json]');
  }, n, { timeout });
  return readResults(page);
}

/** The metrics of the results table: { label: { key: number } }. */
export function readResults(page) {
  return page.evaluate(() => {
    const out = {};
    for (const tr of document.querySelectorAll('[data-testid=results] tbody tr')) {
      const m = {};
      for (const td of tr.querySelectorAll('td[data-key]')) m[td.dataset.key] = Number(td.dataset.value);
      out[tr.dataset.label] = m;
    }
    return out;
  });
}

/** Drops files (name → bytes) on the page as a user dragging them from a file manager. */
export async function dropFiles(page, files) {
  const payload = files.map(({ name, bytes }) => ({ name, b64: Buffer.from(bytes).toString('base64') }));
  await page.evaluate((payload) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of payload) {
      const bin = atob(b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      dt.items.add(new File([u8], name));
    }
    const target = document.querySelector('main') || document.body;
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, payload);
}

/** Fails if a canvas is blank (one colour everywhere). */
export function canvasInk(page, testid) {
  return page.evaluate((testid) => {
    const c = document.querySelector(`[data-testid=${testid}]`);
    if (!c) return -1;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) ink++;
    return ink / (c.width * c.height);
  }, testid);
}

/** Every column of the page's table equals the CLI's metric, exactly. */
export function assertSameNumbers(page, want, labels = Object.keys(want)) {
  assert.deepEqual(Object.keys(page).sort(), [...labels].sort());
  for (const label of labels) {
    for (const [k, v] of Object.entries(page[label])) {
      assert.equal(v, want[label][k], `${label} ${k}: page ${v}, CLI ${want[label][k]}`);
    }
  }
}

/**
 * One page-test file's set-up: a server for dist/ and a browser for the whole file;
 * `newPage()` for a fresh page (its own context) and `open(hashOrUrl)` to load the app in
 * one. Every page is remembered in `pages`, so the file's last test can check that none of
 * them left 127.0.0.1 or logged an error (`assertCleanPages`).
 */
export function pageSuite() {
  const suite = { server: null, browser: null, pages: [] };
  before(async () => {
    suite.server = await serve();
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  suite.newPage = async (options) => {
    const page = await newPage(suite.browser, options);
    suite.pages.push(page);
    return page;
  };
  // `options`: the browser context's (viewport, deviceScaleFactor, …).
  suite.open = async (target = '', options = {}) => {
    const page = await suite.newPage(options);
    await page.goto(/^https?:/.test(target) ? target : suite.server.url + target);
    return page;
  };
  return suite;
}

/** No page requested another host, threw, or logged a console error. */
export function assertCleanPages(pages, atLeast) {
  assert.ok(pages.length >= atLeast, `only ${pages.length} pages were opened`);
  for (const p of pages) {
    assert.deepEqual(p.problems.offsite, [], 'requests to other hosts');
    assert.deepEqual(p.problems.errors, [], 'uncaught page errors');
    assert.deepEqual(p.problems.console, [], 'console errors');
  }
}

/** The page's main thread answers within a second (a round trip and a click), in one of
 * three tries a second apart: a tab a hostile link keeps busy fails all three, while a
 * machine busy with other work (a CI box running builds beside the browser) may slow one. */
export async function assertResponsive(page, what = '') {
  const took = [];
  for (let i = 0; i < 3; i++) {
    const t0 = Date.now();
    await page.evaluate(() => 1);
    await page.click('.metric-help summary');
    took.push(Date.now() - t0);
    if (took[i] < 1000) return;
    await page.waitForTimeout(1000);
  }
  assert.fail(`page blocked${what}: ${took.join(', ')} ms in three tries`);
}

/** The page shows the view `name` (`sf`, `ses`, …): its tab is the current one, its
 *  container is visible in the upper half of the window and every other view is hidden. */
export async function assertOnView(page, name) {
  await page.waitForFunction((name) => {
    const tab = document.querySelector(`[data-testid=tab-${name}]`);
    const view = document.getElementById(`view-${name}`);
    if (!tab || !view || tab.getAttribute('aria-current') !== 'page' || view.hidden) return false;
    const t = view.getBoundingClientRect().top;
    const others = [...document.querySelectorAll('.view')].filter((v) => v !== view);
    return t > -5 && t < innerHeight / 2 && others.every((v) => v.hidden && v.getBoundingClientRect().height === 0);
  }, name);
}
