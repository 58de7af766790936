// Starts the Gridscope app. Trunk's own loader is an inline script, which the page's
// Content-Security-Policy forbids; this file does the same from the page's origin.
const tag = document.querySelector('script[data-js][data-wasm]');
const { default: init } = await import(tag.dataset.js);
await init({ module_or_path: tag.dataset.wasm });
