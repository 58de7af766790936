// Starts the Gridscope app. Trunk's own loader is an inline script, which the page's
// Content-Security-Policy forbids; this file does the same from the page's origin.
const tag = document.querySelector('script[data-js][data-wasm]');
const { default: init } = await import(tag.dataset.js);
await init({ module_or_path: tag.dataset.wasm });

// Offline use: the service worker (sw.js) keeps the app's own files so the page opens and
// runs without a network after one visit. Registered after the app started, so it never
// delays a first visit; failing to register only costs the offline copy.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js').catch((e) => console.warn(`no offline copy: ${e}`));
}
