// bench/bench_browser.py's watcher, installed in every page before Streamlit's own code (Playwright's
// add_init_script, after a line that sets window.__benchOptions = {watchShadows, quietMs}).
//
// It counts the script runs the page has seen start (the app's data-test-script-state attribute going to "running")
// and finish (a ForwardMsg carrying script_finished, field 6, read off the websocket: a run faster than one React
// render never shows "running"), keeps the time of the page's last change (every shadow root watched too, unless
// the old Plotly-only wait is asked for), and gives the bench window.__painted(want), window.__state() and
// window.__remember().
(() => {
  const WATCH_SHADOWS = (window.__benchOptions || {}).watchShadows !== false;
  const QUIET_MS = (window.__benchOptions || {}).quietMs || 400;

  window.__runs = 0;
  window.__finished = 0;
  const topFields = (b) => {  // the field numbers of a protobuf message's top level
    const out = new Set();
    let i = 0;
    const varint = () => {
      let v = 0, m = 1, c;
      do { c = b[i++]; v += (c & 0x7f) * m; m *= 128; } while (c & 0x80 && i < b.length);
      return v;
    };
    while (i < b.length) {
      const tag = varint(), wt = tag % 8;
      out.add(Math.floor(tag / 8));
      if (wt === 0) varint(); else if (wt === 2) i += varint(); else if (wt === 1) i += 8; else if (wt === 5) i += 4;
      else break;
    }
    return out;
  };
  const Native = window.WebSocket;
  const Watched = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', (e) => {
      if (e.data instanceof ArrayBuffer && topFields(new Uint8Array(e.data)).has(6)) window.__finished += 1;
    });
    return ws;
  };
  Watched.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Watched[k] = Native[k];
  window.WebSocket = Watched;
  window.__lastChange = 0;  // performance.now() of the last change to the page (Plotly draws asynchronously)
  const changed = () => { window.__lastChange = performance.now(); if (window.__noteShown) window.__noteShown(); };
  const watch = (node) => new MutationObserver(changed)
    .observe(node, {subtree: true, childList: true, attributes: true, characterData: true});
  const watchAll = () => {
    if (!document.body) { setTimeout(watchAll, 5); return; }
    watch(document.body);
  };
  watchAll();
  // A component draws in its own shadow root, which the body's observer does not see: every shadow root is kept
  // (window.__shadows) and, unless the old Plotly-only wait is asked for, watched as well.
  window.__shadows = [];
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) {
    const root = attach.apply(this, args);
    window.__shadows.push(root);
    if (WATCH_SHADOWS) watch(root);
    return root;
  };
  // the in-page components' roots in the page: the canvas heatmaps (.hm) and the head view (.hv)
  window.__components = () => window.__shadows.filter((r) => r.host.isConnected)
    .flatMap((r) => [...r.querySelectorAll('.hm, .hv')]);
  // True when the page shows the action's result (`want`, see PAINTED): every Plotly chart has a plot, every
  // component has drawn (after a change: another picture than before it, window.__before), and a new sentence's
  // word is drawn in every canvas's token labels (a canvas too dense for names counts by its new sig) or, with no
  // canvas, in a Plotly chart's ticks.
  window.__shows = (want) => {
    const charts = [...document.querySelectorAll("[data-testid='stPlotlyChart']")];
    if (!charts.every(c => c.querySelector('.main-svg .cartesianlayer'))) return false;
    if (!want.components) return true;
    const parts = window.__components();
    if (!parts.every((r) => r.dataset.ready)) return false;
    const before = window.__before || new Map();
    if (want.changed && parts.some((r) => before.has(r) && before.get(r) === r.dataset.ready)) return false;
    if (!want.word) return true;
    let canvases = 0;
    for (const r of parts) {
      if (!r.classList.contains('hm')) continue;
      const tokens = ((r.__hm && r.__hm.labels) || []).filter((d) => d.axis === 'x' || d.axis === 'y');
      if (!tokens.length) continue;
      if (!tokens.some((d) => d.text === want.word)) return false;
      canvases += 1;
    }
    return canvases > 0 || parts.length > 0 || charts.some((c) => [...c.querySelectorAll('.xtick text, .ytick text')]
                                                                 .some((t) => t.textContent === want.word));
  };
  // The first moment the page showed a new sentence's word (window.__want set by the bench before the key press):
  // checked after every change to the page, so the time is that of the drawing that showed it.
  window.__want = null;
  window.__shownAt = 0;
  window.__noteShown = () => {
    if (window.__want && !window.__shownAt && window.__shows(window.__want)) window.__shownAt = performance.now();
  };
  const hook = () => {
    const app = document.querySelector("[data-testid='stApp']");
    if (!app) { setTimeout(hook, 5); return; }
    let last = app.getAttribute('data-test-script-state');
    new MutationObserver(() => {
      const now = app.getAttribute('data-test-script-state');
      if (now === 'running' && last !== 'running') window.__runs += 1;
      last = now;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  };
  hook();

  // True once the page is painted after a script run that started after `want.seen`: {seen: [runs, finished] before
  // the action, word: the word a new sentence must show (or null), changed: every component drawn before the action
  // (window.__before) must have drawn another picture, components: check them}.
  window.__painted = (want) => {
    const seen = want.seen;
    const app = document.querySelector("[data-testid='stApp']");
    if (!app || ((window.__runs || 0) <= seen[0] && (window.__finished || 0) <= seen[1])) return false;
    if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
    if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    // cheap checks first: this runs every frame while the page draws, on the same thread (the queries below only
    // once it has been quiet, when the time is already known)
    if (performance.now() - window.__lastChange < QUIET_MS) return false;
    if (document.querySelector("[data-stale='true']")) return false;
    return window.__shows(want);
  };

  // Before an action: the sig each component shows now (window.__before), for `changed` above.
  window.__remember = () => { window.__before = new Map(window.__components().map((r) => [r, r.dataset.ready || ''])); };

  // What the page shows, when a wait timed out.
  window.__state = () => {
    const app = document.querySelector("[data-testid='stApp']");
    return {runs: window.__runs, finished: window.__finished, script: app && app.getAttribute('data-test-script-state'),
            connection: app && app.getAttribute('data-test-connection-state'),
            stale: [...document.querySelectorAll("[data-stale='true']")].map(e => e.className.slice(0, 80)),
            undrawn: [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                     .filter(c => !c.querySelector('.main-svg .cartesianlayer')).length,
            components: window.__components().map((r) => [r.className, r.dataset.ready || '',
                                                           (window.__before || new Map()).get(r) || null])};
  };
})();
