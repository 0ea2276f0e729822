// The head view (head_view.py): every head's weights as lines from queries to keys, on one canvas.
// Drawing: one canvas. The shown heads' lines are drawn once per size into a picture (batched per opacity level: at
// most LEVELS strokes a head, whatever the number of tokens); each head's own picture is then made in idle time and
// kept, and showing or hiding a head puts the shown heads' pictures together. A hover puts that faintly back and
// draws only the row (or column) on top, so pointing costs one row: <= H x Tk lines.
const LEVELS = 24;
const LAYER_BYTES = 64e6;  // per-head pictures kept up to this many bytes (16 heads x 128 tokens at 1x: 52 MB)
// Whole thousandths, two characters each (head_view_data.encode), into a Uint16Array indexed (h * Tq + q) * Tk + k.
const decode = (text, alphabet) => {
  const look = new Uint8Array(128);
  for (let i = 0; i < 64; i++) look[alphabet.charCodeAt(i)] = i;
  const out = new Uint16Array(text.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = look[text.charCodeAt(2 * i)] * 64 + look[text.charCodeAt(2 * i + 1)];
  return out;
};
export default function(component) {
  const { parentElement, data } = component;
  const root = parentElement.querySelector('.hv');
  if (!root || !data || !data.w) return;
  if (window.__mhaMarks) performance.mark('mha-draw-head-view');  // bench/timeline_browser.py asks for it
  const prev = root.__hv;
  if (prev && prev.sig === data.sig && prev.wordsKey === JSON.stringify(data.words)) return;  // same view: keep it
  if (prev && prev.ro) prev.ro.disconnect();
  const { H, Tq, Tk, scale, colours } = data;
  const top = data.top || scale;  // thousandths drawn at full strength: the view's colour scale
  const w = decode(data.w, data.alphabet), words = data.words || {};
  const st = { sig: data.sig, wordsKey: JSON.stringify(words), H,
               visible: prev && prev.H === H ? prev.visible : new Array(H).fill(true),
               hover: null, base: null, baseKey: '', width: 0 };
  root.__hv = st;
  root.replaceChildren();
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls;
                                   if (text !== undefined) e.textContent = text; return e; };
  const headName = (h) => String(words.head || 'Head {h}').split('{h}').join(String(h));
  const rgba = (hex, a) => `rgba(${parseInt(hex.slice(1, 3), 16)},${parseInt(hex.slice(3, 5), 16)},` +
                           `${parseInt(hex.slice(5, 7), 16)},${a})`;

  // Head switches: "All heads", then one colour per head.
  const bar = el('div', 'hv-heads');
  const all = el('button', 'hv-all', words.all_heads || 'All heads');
  all.type = 'button';
  bar.appendChild(all);
  const swatches = colours.map((c, h) => {
    const b = el('button', 'hv-sw', String(h));
    b.type = 'button';
    b.dataset.head = String(h);
    b.style.backgroundColor = c;  // a checked #rrggbb (head_view_data.prepare)
    b.setAttribute('title', headName(h));
    b.setAttribute('aria-label', headName(h));
    bar.appendChild(b);
    return b;
  });
  root.appendChild(bar);
  if (words.hint) root.appendChild(el('div', 'hv-hint', words.hint));

  const n = Math.max(Tq, Tk);
  const ROW = n <= 40 ? 22 : n <= 80 ? 18 : 15;
  const titles = el('div', 'hv-titles');
  titles.appendChild(el('div', 'hv-col hv-tq', words.queries || 'Queries'));
  titles.appendChild(el('div', 'hv-mid'));
  titles.appendChild(el('div', 'hv-col hv-tk', words.keys || 'Keys'));
  root.appendChild(titles);
  const body = el('div', 'hv-body');
  const column = (side, labels, raws) => {
    const col = el('div', 'hv-col hv-' + side);
    const toks = labels.map((label, i) => {
      const t = el('div', 'hv-tok');
      t.dataset.side = side;
      t.dataset.i = String(i);
      t.tabIndex = i === 0 ? 0 : -1;  // one tab stop per column; the arrow keys move within (see below)
      t.style.height = ROW + 'px';
      t.setAttribute('title', `${i}: ${label}` + (raws && raws[i] ? ` · ${raws[i]}` : ''));  // + the raw piece
      const num = el('span', 'hv-num');
      const txt = el('span', 'hv-txt', label);
      if (side === 'q') { t.appendChild(num); t.appendChild(txt); } else { t.appendChild(txt); t.appendChild(num); }
      col.appendChild(t);
      return t;
    });
    return [col, toks];
  };
  const [qcol, qtoks] = column('q', data.queries, data.queries_raw);
  const [kcol, ktoks] = column('k', data.keys, data.keys_raw);
  const mid = el('div', 'hv-mid');
  const canvas = document.createElement('canvas');
  mid.appendChild(canvas);
  body.appendChild(qcol); body.appendChild(mid); body.appendChild(kcol);
  root.appendChild(body);
  const ctx = canvas.getContext('2d');
  const dpr = window.devicePixelRatio || 1;
  const height = n * ROW;

  const shownHeads = () => { const out = []; for (let h = 0; h < H; h++) if (st.visible[h]) out.push(h); return out; };
  const yOf = (i) => i * ROW + ROW / 2;
  const x0 = 2, x1 = () => st.width - 2;

  // Lines of the shown heads, batched by opacity level; ``only`` restricts to one row ('q') or column ('k').
  // Returns the drawn lines as [head, query, key].
  const draw = (target, only, strong, heads = shownHeads()) => {
    const drawn = [];
    const xe = x1();
    const min = only ? data.min : data.min_all;
    for (const h of heads) {
      const buckets = new Array(LEVELS);
      const qa = only && only.side === 'q' ? only.i : 0, qb = only && only.side === 'q' ? only.i + 1 : Tq;
      const ka = only && only.side === 'k' ? only.i : 0, kb = only && only.side === 'k' ? only.i + 1 : Tk;
      for (let q = qa; q < qb; q++) {
        const row = (h * Tq + q) * Tk;
        for (let k = ka; k < kb; k++) {
          const v = w[row + k];
          if (v < min) continue;  // masked (0) or too faint to see: no line
          const level = Math.min(LEVELS - 1, Math.floor(v * LEVELS / top));  // on the view's colour scale
          (buckets[level] || (buckets[level] = [])).push(q, k);
          if (only) drawn.push([h, q, k]);
        }
      }
      target.strokeStyle = colours[h];
      for (let level = 0; level < LEVELS; level++) {
        const b = buckets[level];
        if (!b) continue;
        const v = (level + 0.5) / LEVELS;
        // Opacity is the weight; a pointed-at row shows weak weights a little stronger (sqrt) so it can be read.
        target.globalAlpha = strong ? Math.sqrt(v) : v;
        // Past 40 tokens the overview's lines stay at most 1 px wide: thousands of wider ones took seconds to
        // rasterise in software (a hairline is drawn on a fast path); their opacity still says the weight.
        target.lineWidth = strong ? 1 + 3 * v : n > 40 ? 0.5 + 0.5 * v : 0.75 + 2.25 * v;
        target.beginPath();
        for (let j = 0; j < b.length; j += 2) { target.moveTo(x0, yOf(b[j])); target.lineTo(xe, yOf(b[j + 1])); }
        target.stroke();
      }
    }
    target.globalAlpha = 1;
    return drawn;
  };
  const countAll = () => {
    let c = 0;
    for (const h of shownHeads()) {
      const a = h * Tq * Tk, b = a + Tq * Tk;
      for (let i = a; i < b; i++) if (w[i] >= data.min_all) c++;
    }
    return c;
  };
  const picture = (heads) => {
    const off = document.createElement('canvas');
    off.width = canvas.width; off.height = canvas.height;
    const c = off.getContext('2d');
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw(c, null, false, heads);
    return off;
  };
  // Rasterising the lines is what costs (~0.5 s for 16 heads x 128 tokens, in software): each head's picture is
  // kept while all of them fit LAYER_BYTES, so showing or hiding a head only puts the kept pictures together.
  const layered = () => canvas.width * canvas.height * 4 * H <= LAYER_BYTES;
  // The picture of every shown head's lines, kept until the shown heads or the size change.
  const basePicture = () => {
    const key = st.visible.join(',') + '|' + st.width;
    if (st.baseKey !== key) {
      if (st.layersWidth !== st.width) { st.layers = []; st.layersWidth = st.width; }
      // The first picture at a size is every shown head's lines in one drawing (a new sentence draws each line once);
      // each head's own picture is made in the page's idle time after it (``keepLayers``), or here for a head
      // switched before then.
      let off;
      if (layered() && (shownHeads().length < H || st.layers.length > 0)) {
        off = document.createElement('canvas');
        off.width = canvas.width; off.height = canvas.height;
        const c = off.getContext('2d');
        for (const h of shownHeads()) c.drawImage(st.layers[h] || (st.layers[h] = picture([h])), 0, 0);
      } else {
        off = picture(shownHeads());
      }
      st.base = off; st.baseKey = key; st.baseCount = countAll();
      if (layered() && st.layers.filter(Boolean).length < H) keepLayers();
    }
    return st.base;
  };
  // Each head's picture at this size, made one at a time while the page is idle (a new sentence is drawn first),
  // so that showing or hiding a head only puts kept pictures together.
  const idle = window.requestIdleCallback || ((f) => setTimeout(() => f({ timeRemaining: () => 8 }), 30));
  const keepLayers = () => {
    if (st.keeping) return;
    st.keeping = true;
    const step = (deadline) => {
      if (root.__hv !== st || st.layersWidth !== st.width || !layered()) { st.keeping = false; return; }
      let made = 0;  // at least one a turn, however short the idle time
      for (let h = 0; h < H; h++) {
        if (st.layers[h]) continue;
        if (made && deadline.timeRemaining() < 4) { idle(step); return; }
        st.layers[h] = picture([h]);
        made += 1;
      }
      st.keeping = false;
    };
    idle(step);
  };
  // Token marks: only the tokens marked last time are cleared (at 128 tokens, touching every token's style on each
  // hover would cost a style recalculation of all of them).
  let marked = [];
  const mark = (t, colour, text) => {
    t.style.backgroundColor = colour;
    (t.dataset.side === 'q' ? t.firstChild : t.lastChild).textContent = text;
    marked.push(t);
  };
  const clearMarks = () => {
    for (const t of marked) { t.style.backgroundColor = ''; t.classList.remove('hv-on');
                              (t.dataset.side === 'q' ? t.firstChild : t.lastChild).textContent = ''; }
    marked = [];
  };
  // The other side's tokens take the colour of their strongest shown head, as strong as that weight; with one
  // head shown they also show the number.
  const markOthers = (side, i) => {
    const heads = shownHeads();
    const others = side === 'q' ? ktoks : qtoks;
    for (let j = 0; j < others.length; j++) {
      let best = -1, bh = -1;
      for (const h of heads) {
        const v = side === 'q' ? w[(h * Tq + i) * Tk + j] : w[(h * Tq + j) * Tk + i];
        if (v > best) { best = v; bh = h; }
      }
      const colour = bh >= 0 && best >= data.min ? rgba(colours[bh], Math.min(0.85, best / top)) : '';
      const text = heads.length === 1 ? (best / scale).toFixed(2) : '';
      if (colour || text) mark(others[j], colour, text);
    }
  };
  const render = () => {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const base = basePicture();
    clearMarks();
    let drawn = [];
    if (st.hover) {
      ctx.globalAlpha = 0.12;  // the other lines stay as a faint background
      ctx.drawImage(base, 0, 0);
      ctx.globalAlpha = 1;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.lineCap = 'round';
      drawn = draw(ctx, st.hover, true);
      const on = (st.hover.side === 'q' ? qtoks : ktoks)[st.hover.i];
      on.classList.add('hv-on');
      marked.push(on);
      markOthers(st.hover.side, st.hover.i);
    } else {
      ctx.drawImage(base, 0, 0);
    }
    root.__hvDrawn = drawn;
    root.dataset.hover = st.hover ? st.hover.side + st.hover.i : '';
    root.dataset.visible = shownHeads().join(',');
    root.dataset.lines = String(st.hover ? drawn.length : st.baseCount);
    swatches.forEach((b, h) => b.setAttribute('aria-pressed', st.visible[h] ? 'true' : 'false'));
  };
  // Drawn at the middle column's width (``width``, CSS px: the last view's, or as measured); ``data-ready`` says
  // which view is drawn.
  const resize = (width) => {
    const wpx = Math.max(60, Math.floor(width));
    if (wpx === st.width && canvas.height === Math.round(height * dpr)) return;
    st.width = wpx;
    canvas.width = Math.round(wpx * dpr); canvas.height = Math.round(height * dpr);
    canvas.style.width = wpx + 'px'; canvas.style.height = height + 'px';
    render();
    root.dataset.ready = data.sig;
  };

  // Pointing: one listener for all tokens (mouse and keyboard focus alike).
  const tokenOf = (e) => { const t = e.target && e.target.closest ? e.target.closest('.hv-tok') : null;
                           return t && body.contains(t) ? t : null; };
  const point = (t) => {
    const next = t ? { side: t.dataset.side, i: Number(t.dataset.i) } : null;
    if ((next && st.hover && next.side === st.hover.side && next.i === st.hover.i) || (!next && !st.hover)) return;
    st.hover = next;
    render();
  };
  body.addEventListener('mouseover', (e) => point(tokenOf(e)));
  body.addEventListener('mouseleave', () => point(null));
  body.addEventListener('focusin', (e) => point(tokenOf(e)));
  body.addEventListener('focusout', (e) => { if (!(e.relatedTarget && body.contains(e.relatedTarget))) point(null); });
  body.addEventListener('keydown', (e) => {
    const t = tokenOf(e);
    if (!t) return;
    const i = Number(t.dataset.i), side = t.dataset.side;
    const moves = { ArrowUp: [side, i - 1], ArrowDown: [side, i + 1], ArrowLeft: ['q', i], ArrowRight: ['k', i] };
    if (!(e.key in moves)) return;
    const [s2, j] = moves[e.key];
    const list = s2 === 'q' ? qtoks : ktoks;
    const next = list[Math.max(0, Math.min(list.length - 1, j))];
    e.preventDefault();
    t.tabIndex = -1; next.tabIndex = 0;
    next.focus();
  });
  bar.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b === all) st.visible = new Array(H).fill(true);
    else { const h = Number(b.dataset.head); st.visible = st.visible.slice(); st.visible[h] = !st.visible[h]; }
    render();
  });
  bar.addEventListener('dblclick', (e) => {
    const b = e.target.closest('.hv-sw');
    if (!b) return;
    const h = Number(b.dataset.head);
    const alone = st.visible.every((v, j) => v === (j === h));
    st.visible = alone ? new Array(H).fill(true) : st.visible.map((_, j) => j === h);
    render();
  });
  st.ro = new ResizeObserver((entries) => resize(entries[entries.length - 1].contentRect.width));
  st.ro.observe(mid);
  // Drawn now at the width the last view had (the token columns have fixed widths, so a new sentence's middle is as
  // wide; measuring it here would force a layout of the whole page); the first view measures. The observer's first
  // report, after the page's layout, redraws only if the width is another.
  resize(prev && prev.width ? prev.width : mid.getBoundingClientRect().width);
  return () => { if (st.ro) st.ro.disconnect(); };
}
