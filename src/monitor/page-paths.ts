/**
 * Where the live page and its data are served (docs/live-page.md): one prefix, /svir/, for all
 * but the page itself, which is `GET /` for a browser.
 */
export const PAGE_SCRIPT_PATH = '/svir/page/app.js';
export const PAGE_STYLE_PATH = '/svir/page/app.css';
export const STATE_PATH = '/svir/api/state';
export const EVENTS_PATH = '/svir/api/events';
