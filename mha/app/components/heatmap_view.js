// The canvas heatmaps (heatmap_view.py): the grid of heads and the enlarged head, drawn and answered here.
const b64 = (text) => { const s = atob(text); const out = new Uint8Array(s.length);
                        for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i); return out; };
const PNG_SCALE = 2;  // the ⤓ PNG file has twice the page's pixels: sharp on a projector
// Measured label widths, per font (the module stays loaded across payloads: a new sentence measures only its new
// words; the colour bar's ticks and titles are measured once). Emptied when it grows past WIDTHS_MAX entries and
// whenever the page's fonts finish loading (a width measured in a fallback font is not kept).
const WIDTHS = new Map();
const WIDTHS_MAX = 20000;
if (document.fonts) document.fonts.addEventListener('loadingdone', () => WIDTHS.clear());
const textWidth = (ctx, text) => {
  if (document.fonts && document.fonts.status !== 'loaded') return ctx.measureText(text).width;
  const key = ctx.font + '\n' + text;
  let w = WIDTHS.get(key);
  if (w === undefined) {
    if (WIDTHS.size >= WIDTHS_MAX) WIDTHS.clear();
    w = ctx.measureText(text).width;
    WIDTHS.set(key, w);
  }
  return w;
};
// The chart's elements, made once per chart (root: its ``.hm``): the picture, the overlay (hover and selection
// outlines, the keyboard's focus), the tooltip, the note and the PNG button under it. Their listeners call the
// handlers of the payload now shown (root.__hmState.on), so a new payload keeps the elements.
const build = (root) => {
  const el = (tag, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; return e; };
  const wrap = el('div', 'hm-wrap');
  const canvas = el('canvas'), over = el('canvas', 'hm-over'), tip = el('div', 'hm-tip');
  over.tabIndex = 0;
  over.setAttribute('role', 'img');
  const png = el('button', 'hm-png');
  png.type = 'button';
  png.textContent = '⤓ PNG';
  const on = (target, type, name) => target.addEventListener(type, (e) => {
    const st = root.__hmState;
    if (st && st.on[name]) st.on[name](e);
  });
  on(png, 'click', 'png');
  for (const type of ['mousemove', 'mouseleave', 'click', 'focus', 'blur', 'keydown']) on(over, type, type);
  wrap.append(canvas, over, tip);
  // Under the picture, never over it (on top it hid the colour bar's title): the note, and the button at its right.
  const foot = el('div', 'hm-foot'), note = el('div', 'hm-note');
  foot.append(note, png);
  root.replaceChildren(wrap, foot);
  return { canvas, over, tip, foot, note, png, ctx: canvas.getContext('2d'), octx: over.getContext('2d'), pics: [] };
};
export default function(component) {
  const { parentElement, data, setTriggerValue } = component;
  const root = parentElement.querySelector('.hm');
  if (!root || !data || !data.codes) return;
  if (window.__mhaMarks) performance.mark('mha-draw-' + data.layout);  // bench/timeline_browser.py asks for it
  const prev = root.__hmState;
  // Charts of one group: the enlarged head says which head it shows, the grid outlines that head's panel.
  const groupEvent = data.group ? 'mha-heatmaps:' + data.group : null;
  // The last head announced is kept on window too: the grid may be set up after the enlarged head spoke.
  const shown = window.__mhaHeatmapsShown || (window.__mhaHeatmapsShown = {});
  const announce = () => { if (groupEvent && data.layout === 'single') {
    shown[data.group] = data.heads[0];
    window.dispatchEvent(new CustomEvent(groupEvent, { detail: data.heads[0] })); } };
  const markedNow = () => (data.marked !== null && data.marked !== undefined ? data.marked
                           : data.group && data.layout !== 'single' ? shown[data.group] : null);
  if (prev && prev.sig === data.sig) {  // same picture: only the outlined cell or panel may have moved
    prev.selected = data.selected;
    prev.marked = markedNow();
    prev.drawOver();
    announce();
    return;
  }
  if (prev && prev.ro) prev.ro.disconnect();
  if (prev && prev.listen) window.removeEventListener(prev.listen[0], prev.listen[1]);
  const { H, Tq, Tk, heads, q, k, words } = data;
  // A (tokens, features) map (heatmap_data.features, the Step-by-step page's x, Q, concat, output): one panel like
  // the enlarged head's, tokens down the side, a few feature numbers under it, no heads.
  const features = data.layout === 'features';
  const single = data.layout === 'single' || features;
  // The model view: every layer x head as a thumbnail, a layer a row (data.cols heads), titles from the payload.
  const model = data.layout === 'model';
  const titles = data.titles || null;
  const codes = b64(data.codes);
  const values = data.values ? new Float32Array(b64(data.values).buffer) : null;
  const blocked = data.blocked ? b64(data.blocked) : null;
  const lut = [];
  for (let c = 0; c < 256; c++) { const h = data.lut.slice(6 * c, 6 * c + 6);
    lut.push([parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)]); }
  // The column's width as last measured (a new payload in the same place draws at once, without asking the page for
  // its layout: the ResizeObserver below says when the width changes).
  const st = { sig: data.sig, selected: data.selected, marked: markedNow(), hover: null, last: null,
               width: prev ? prev.width : 0, geo: null, on: {} };
  root.__hmState = st;
  // The chart's elements are made once and kept: a new payload (a new sentence) redraws them, it does not rebuild
  // them. Their listeners answer through the state of the payload shown (root.__hmState.on).
  const dom = root.__hmDom || (root.__hmDom = build(root));
  const { canvas, over, tip, foot, note, png, ctx, octx } = dom;
  tip.style.display = 'none';
  png.title = words.download_png;
  png.setAttribute('aria-label', words.download_png);
  // Download the picture (as Plotly's camera button did) for a projector: drawn anew at PNG_SCALE (not the
  // screen's pixel ratio), on the page's background, under a title (what it shows, on which sentence).
  st.on.png = () => {
    const out = exportCanvas();
    out.toBlob((blob) => {
      if (!blob) return;
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = features ? `${data.file}.png`
        : `${data.kind}_${single ? 'head_' + heads[0] : model ? 'model_view' : 'all_heads'}.png`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    }, 'image/png');
  };

  // One small picture per head, one pixel per cell (blocked cells grey), scaled up without smoothing (the canvases
  // are kept with the chart's elements).
  const pictures = [];
  for (let p = 0; p < H; p++) {
    const pic = dom.pics[p] || (dom.pics[p] = document.createElement('canvas'));
    if (pic.width !== Tk) pic.width = Tk;
    if (pic.height !== Tq) pic.height = Tq;
    const pc = pic.getContext('2d'), img = pc.createImageData(Tk, Tq);
    for (let i = 0; i < Tq * Tk; i++) {
      const n = p * Tq * Tk + i;
      const [r, g, b] = blocked && blocked[n] ? [150, 150, 150] : lut[codes[n]];
      img.data[4 * i] = r; img.data[4 * i + 1] = g; img.data[4 * i + 2] = b; img.data[4 * i + 3] = 255;
    }
    pc.putImageData(img, 0, 0);
    pictures.push(pic);
  }
  dom.pics.length = H;
  const headName = (p) => (titles ? titles[p] : `${words.head} ${heads[p]}`);
  // the hover's first line: "layer 2 · head 3" in the model view
  const panelName = (p) => (model ? words.panel_hover.replace('{layer}', data.layers[p]).replace('{head}', heads[p])
                                  : headName(p));
  // what a screen reader says: "head 2: weights"; "weights: head 0, head 1, head 2, head 3"
  over.setAttribute('aria-label', features ? words.value : single ? `${headName(0)}: ${words.value}`
                                 : model ? `${words.value}: ${headName(0)} … ${headName(H - 1)}`
                                 : `${words.value}: ${heads.map((_, p) => headName(p)).join(', ')}`);

  // The page's font and text colour, read once per drawing (``style``: the root's computed style).
  const layout = (W, style) => (model ? modelLayout(W, style) : features ? featuresLayout(W, style)
    : gridLayout(W, style));
  const widest = (arr) => arr.reduce((m, s) => Math.max(m, textWidth(ctx, s)), 0);
  // Tokens down the side, the features along the bottom (a few numbers, then the columns' name), cells as wide as
  // the column allows (40 px at most) and rows as high as Plotly's features chart draws them; the bands' labels on top.
  const featuresLayout = (W, style) => {
    const family = style.fontFamily || 'sans-serif';
    const F = 12, TF = 11, BF = 12, font = (px, bold) => `${bold ? '600 ' : ''}${px}px ${family}`;
    ctx.font = font(F);
    const showY = Tq <= 64;
    const yLab = showY ? Math.ceil(widest(q)) + 8 : 0;
    ctx.font = font(BF);
    const barLines = data.bar.title;
    let barW = Math.ceil(widest(barLines));
    ctx.font = font(11);
    barW = Math.max(barW, 14 + 6 + Math.ceil(widest(data.bar.ticks.map((t) => t[1])))) + 24;
    const avail = Math.max(40, W - yLab - barW - 8 - 4);
    const cw = Math.floor(Math.min(40, avail / Tk) * 100) / 100;
    const ch = showY ? Math.max(16, Math.min(22, Math.floor(600 / Tq))) : Math.max(3, Math.floor(600 / Tq));
    const top0 = data.bands.some((b) => b[3]) ? 20 + (data.band_stagger ? 13 : 0) : 4;
    const panels = [{ x: yLab, y: top0, w: Tk * cw, h: Tq * ch }];
    const xBand = 4 + 11 + 6 + BF + 6;  // the numbers, then the columns' name
    const barX = yLab + Tk * cw + 16, barTop = top0 + barLines.length * (BF + 3) + 10;
    const barH = Math.max(80, Math.min(300, top0 + Tq * ch - barTop));
    const width = Math.ceil(barX + barW - 8);
    const height = Math.ceil(Math.max(top0 + Tq * ch + xBand, barTop + barH + 10));
    return { F, TF, BF, font, showX: false, showY, upright: true, xBand, cw, ch, panels, barX, barTop, barH,
             barLines, width, height, yLab, yTitle: 0, keyTitle: 0, top0, titleBand: 0, cols: 1 };
  };
  // Thumbnails: square cells (1 px at least), no token names, the panel's title above it in a font that fits.
  const modelLayout = (W, style) => {
    const family = style.fontFamily || 'sans-serif';
    const BF = 12, font = (px, bold) => `${bold ? '600 ' : ''}${px}px ${family}`;
    const cols = data.cols, rows = Math.ceil(H / cols), gap = 8;
    ctx.font = font(BF);
    const barLines = data.bar.title;
    let barW = Math.ceil(widest(barLines));
    ctx.font = font(11);
    barW = Math.max(barW, 14 + 6 + Math.ceil(widest(data.bar.ticks.map((t) => t[1])))) + 24;
    const avail = Math.max(40, W - barW - 8 - gap * (cols - 1) - 7);
    const cw = Math.floor(Math.max(1, Math.min(12, avail / cols / Math.max(Tq, Tk))) * 100) / 100, ch = cw;
    const panelW = Tk * cw, panelH = Tq * ch;
    // the titles' font: 11 px, smaller (down to 8) until the widest fits its thumbnail and most of the gap
    let TF = 11;
    ctx.font = font(TF, true);
    const wide = widest(titles);
    if (wide > panelW + gap - 6) TF = Math.max(8, Math.floor(TF * (panelW + gap - 6) / wide));  // 6 px of air
    const titleBand = TF + 6, rowH = titleBand + panelH + gap;
    const panels = [];
    for (let p = 0; p < H; p++) {
      const c = p % cols, r = Math.floor(p / cols);
      panels.push({ x: 3 + c * (panelW + gap), y: r * rowH + titleBand, w: panelW, h: panelH });
    }
    const right = 3 + cols * panelW + gap * (cols - 1);  // 3 px left: room for the shown head's frame
    const barX = right + 16, barTop = panels[0].y + barLines.length * (BF + 3) + 10;
    const barH = Math.max(80, Math.min(300, panels[H - 1].y + panelH - barTop));
    const width = Math.ceil(barX + barW - 8), height = Math.ceil(Math.max(rows * rowH, barTop + barH + 10));
    return { F: 11, TF, BF, font, showX: false, showY: false, upright: false, xBand: 0, cw, ch, panels, barX,
             barTop, barH, barLines, width, height, yLab: 0, yTitle: 0, keyTitle: 0, top0: 0, titleBand, cols };
  };
  const gridLayout = (W, style) => {
    const family = style.fontFamily || 'sans-serif';
    const F = single ? 12 : 11, TF = 14, BF = 12;
    const font = (px, bold) => `${bold ? '600 ' : ''}${px}px ${family}`;
    ctx.font = font(F);
    const qW = Math.ceil(widest(q)) + 8;
    const yTitle = single ? 20 : 0;
    ctx.font = font(BF);
    const barLines = data.bar.title;
    let barW = Math.ceil(widest(barLines));
    ctx.font = font(11);
    barW = Math.max(barW, 14 + 6 + Math.ceil(widest(data.bar.ticks.map((t) => t[1])))) + 24;
    const gap = single ? 0 : 16;
    // Four panels a row; fewer in a narrow column, where four would need cells under 2 px and overflow it (the
    // query names take room only when they can be shown: up to 64 queries). Rows as even as the columns allow:
    // 2 + 2 rather than 3 + 1.
    const qRoom = Tq <= 64 ? qW : 0;
    let cols = single ? 1 : Math.min(4, H);
    while (cols > 1 && (W - yTitle - qRoom - barW - 8 - gap * (cols - 1) - 4) / cols / Tk < 2) cols -= 1;
    cols = Math.ceil(H / Math.ceil(H / cols));
    const rows = Math.ceil(H / cols);
    // Every query named down the first column while rows can be 15 px high and the grid stays under 3000 px
    // (16 heads x 64 tokens would be 4000 px): else the names are in the hover.
    const showY = Tq <= 64 && (single || rows * (22 + Tq * 15 + 10) <= 3000);
    const yLab = showY ? qW : 0;
    // the bar starts 16 px right of the cells and takes barW - 8 from there: the cells get what is left, less 4
    const avail = Math.max(40, W - yTitle - yLab - barW - 8 - gap * (cols - 1) - 4);
    let cw, ch;
    if (single) {
      cw = Math.max(2, Math.min(56, 560 / Math.max(Tq, Tk), avail / Tk));
    } else {
      cw = Math.max(2, Math.min(40, avail / cols / Tk));
    }
    ctx.font = font(F);
    const kW = widest(k);
    // One map in a narrow column (a step of Step by step) whose columns are thinner than a label: every n-th key
    // named (n as small as keeps them apart), the others in the hover, as Plotly thins its ticks.
    const every = single && Tk <= 64 && cw < F + 1 ? Math.ceil((F + 1) / cw) : 1;
    const showX = Tk <= 64 && (cw >= F + 1 || every > 1);
    const upright = showX && kW + 4 <= cw * every;
    const xBand = !showX ? 0 : upright ? F + 8 : Math.ceil(kW) + 8;
    ch = single ? Math.max(cw, showY ? 16 : 2) : Math.max(showY ? 15 : 3, Math.min(28, cw));
    cw = Math.floor(cw * 100) / 100; ch = Math.floor(ch * 100) / 100;
    const titleBand = single ? 0 : 22;
    const keyTitle = single ? 20 : 0;
    const panelH = Tq * ch, panelW = Tk * cw;
    const rowH = titleBand + panelH + (single ? 0 : xBand) + (single ? 0 : 10);
    const top0 = single ? keyTitle + xBand : 0;
    const panels = [];
    for (let p = 0; p < H; p++) {
      const c = p % cols, r = Math.floor(p / cols);
      panels.push({ x: yTitle + yLab + c * (panelW + gap), y: top0 + r * rowH + titleBand, w: panelW, h: panelH });
    }
    const right = yTitle + yLab + cols * panelW + gap * (cols - 1);
    const barX = right + 16, barTop = panels[0].y + barLines.length * (BF + 3) + 10;
    const cellsBottom = panels[H - 1].y + panelH;
    const barH = Math.max(80, Math.min(300, cellsBottom - barTop));
    const width = Math.ceil(Math.max(right + barW, barX + barW - 8));
    const height = Math.ceil(Math.max(top0 + rows * rowH + (single ? 4 : 0), barTop + barH + 10));
    return { F, TF, BF, font, showX, showY, upright, xBand, cw, ch, panels, barX, barTop, barH, barLines,
             width, height, yLab, yTitle, keyTitle, top0, titleBand, cols, every };
  };

  // Draw at the column's width ``width`` (CSS px). The canvases are resized only when their size changes (a resize
  // clears them and allocates their pixels anew); elements are touched only where what they show changed.
  const draw = (width) => {
    st.width = width;
    const style = getComputedStyle(root);
    const g = layout(Math.max(120, width), style);
    st.geo = g;
    const dpr = window.devicePixelRatio || 1;
    const set = (obj, k, v) => { if (obj[k] !== v) obj[k] = v; };
    for (const c of [canvas, over]) {
      set(c, 'width', Math.round(g.width * dpr)); set(c, 'height', Math.round(g.height * dpr));
      set(c.style, 'width', g.width + 'px'); set(c.style, 'height', g.height + 'px');
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    const labels = [];
    paint(ctx, g, labels, style.color);
    set(foot.style, 'maxWidth', g.width + 'px');  // the button at the picture's right edge, under it
    const unnamed = (!g.showX || g.every > 1) && !model && !features;  // some keys named on hover only
    set(note, 'textContent', unnamed ? words.keys_on_hover : '');
    set(note.style, 'display', unnamed ? '' : 'none');
    root.__hm.labels = labels;
    set(root.dataset, 'cell', `${g.cw}x${g.ch}`);
    st.drawOver();
  };

  // What the picture says it is: the kind and the heads, then the sentence (cut to the width).
  const titleLines = (c, g, S) => {
    const range = heads.length > 1 && heads.every((h, i) => i === 0 || h === heads[i - 1] + 1)
      ? `${words.head} ${heads[0]}–${heads[heads.length - 1]}` : heads.map((h) => `${words.head} ${h}`).join(', ');
    const fit = (text, font, room) => {
      c.font = font;
      if (textWidth(c, text) <= room) return text;
      let n = text.length;
      while (n > 1 && c.measureText(text.slice(0, n) + '…').width > room) n -= 1;
      return text.slice(0, n) + '…';
    };
    const what = features ? words.value : `${words.value} · ${single ? `${words.head} ${heads[0]}` : range}`;
    return [[fit(what, g.font(S.TITLE, true),
                 g.width - 8), g.font(S.TITLE, true)],
            [fit(q.join(' '), g.font(S.SUB), g.width - 8), g.font(S.SUB)]];
  };
  const exportCanvas = () => {
    const g = st.geo, S = { SCALE: PNG_SCALE, TITLE: 15, SUB: 12, BAND: 46 };
    const out = document.createElement('canvas');
    out.width = Math.round(g.width * S.SCALE); out.height = Math.round((g.height + S.BAND) * S.SCALE);
    const c = out.getContext('2d');
    c.setTransform(S.SCALE, 0, 0, S.SCALE, 0, 0);
    const bg = getComputedStyle(root).getPropertyValue('--st-background-color').trim();
    c.fillStyle = '#ffffff';
    if (bg) c.fillStyle = bg;  // an invalid colour leaves white
    c.fillRect(0, 0, g.width, g.height + S.BAND);
    c.fillStyle = getComputedStyle(root).color || '#31333f';
    c.textAlign = 'left'; c.textBaseline = 'top';
    titleLines(c, g, S).forEach(([text, font], i) => { c.font = font; c.fillText(text, 4, 6 + i * 20); });
    c.setTransform(S.SCALE, 0, 0, S.SCALE, 0, S.BAND * S.SCALE);
    paint(c, g, [], getComputedStyle(root).color);
    root.dataset.pngBand = String(S.BAND);
    return out;
  };

  // The picture: cells, token names, axis titles, the colour bar, on ``c`` (its transform set by the caller), in
  // the colour ``colour`` (the page's text); every text drawn is listed in ``labels``.
  const paint = (ctx, g, labels, colour) => {
    const ink = colour || '#31333f';
    ctx.imageSmoothingEnabled = false;
    g.panels.forEach((P, p) => {
      ctx.drawImage(pictures[p], P.x, P.y, P.w, P.h);
      ctx.fillStyle = ink;
      if (!single) {
        ctx.font = g.font(g.TF, true); ctx.textAlign = 'center'; ctx.textBaseline = 'bottom';
        if (model) { ctx.font = g.font(g.TF, true); ctx.textBaseline = 'bottom'; }
        ctx.fillText(headName(p), P.x + P.w / 2, P.y - (model ? 3 : 5));
        labels.push({ axis: 'title', panel: p, i: heads[p], text: headName(p), font: g.TF, angle: 0 });
      }
      ctx.font = g.font(g.F);
      if (g.showY && (single || p % g.cols === 0)) {
        ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
        q.forEach((s, i) => { ctx.fillText(s, P.x - 5, P.y + (i + 0.5) * g.ch);
                              labels.push({ axis: 'y', panel: p, i, text: s, font: g.F, angle: 0 }); });
      }
      if (g.showX) {
        const y = single ? P.y - 5 : P.y + P.h + 5;
        k.forEach((s, j) => {
          if (g.every > 1 && j % g.every) return;
          const x = P.x + (j + 0.5) * g.cw;
          if (g.upright) {
            ctx.textAlign = 'center'; ctx.textBaseline = single ? 'bottom' : 'top';
            ctx.fillText(s, x, y);
          } else {  // turned a quarter left, read bottom to top
            ctx.save(); ctx.translate(x, y); ctx.rotate(-Math.PI / 2);
            ctx.textAlign = single ? 'left' : 'right'; ctx.textBaseline = 'middle';
            ctx.fillText(s, 0, 0); ctx.restore();
          }
          labels.push({ axis: 'x', panel: p, i: j, text: s, font: g.F, angle: g.upright ? 0 : -90 });
        });
      }
    });
    if (features) paintFeatures(ctx, g, labels, ink);
    else if (single) {  // axis titles: keys along the top, queries down the left
      ctx.font = g.font(g.BF); ctx.fillStyle = ink;
      const P = g.panels[0];
      ctx.textAlign = 'center'; ctx.textBaseline = 'top';
      ctx.fillText(words.key_axis, P.x + P.w / 2, 2);
      ctx.save(); ctx.translate(2, P.y + P.h / 2); ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = 'top'; ctx.fillText(words.query_axis, 0, 0); ctx.restore();
      labels.push({ axis: 'xtitle', panel: 0, i: 0, text: words.key_axis, font: g.BF, angle: 0 },
                  { axis: 'ytitle', panel: 0, i: 0, text: words.query_axis, font: g.BF, angle: -90 });
    }
    // The colour bar: its title above, 256 steps, ticks with the values they stand for.
    ctx.font = g.font(g.BF); ctx.fillStyle = ink; ctx.textAlign = 'left'; ctx.textBaseline = 'top';
    g.barLines.forEach((s, i) => { ctx.fillText(s, g.barX, g.panels[0].y + i * (g.BF + 3));
                                   labels.push({ axis: 'bar', panel: -1, i, text: s, font: g.BF, angle: 0 }); });
    for (let c = 0; c < 256; c++) {
      const [r, gg, b] = lut[255 - c];
      ctx.fillStyle = `rgb(${r},${gg},${b})`;
      ctx.fillRect(g.barX, g.barTop + (c / 256) * g.barH, 14, g.barH / 256 + 0.6);
    }
    ctx.fillStyle = ink; ctx.font = g.font(11); ctx.textBaseline = 'middle';
    for (const [f, text] of data.bar.ticks) {
      const y = g.barTop + (1 - f) * g.barH;
      ctx.fillRect(g.barX + 14, y - 0.5, 4, 1);
      ctx.fillText(text, g.barX + 20, y);
      labels.push({ axis: 'tick', panel: -1, i: 0, text, font: 11, angle: 0 });
    }
  };

  // Under a features map: a few column numbers (none running into the last), the columns' name; each band of
  // columns (a head's block of concat) outlined in its colour, its label above it.
  const paintFeatures = (ctx, g, labels, ink) => {
    const P = g.panels[0];
    ctx.fillStyle = ink; ctx.font = g.font(11); ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    let last = -Infinity;
    for (const j of data.xticks) {
      const x = P.x + (j + 0.5) * g.cw, text = String(j), half = ctx.measureText(text).width / 2;
      if (x - half < last + 6) continue;
      ctx.fillText(text, x, P.y + P.h + 4);
      last = x + half;
      labels.push({ axis: 'xtick', panel: 0, i: j, text, font: 11, angle: 0 });
    }
    ctx.font = g.font(g.BF);
    ctx.fillText(data.col_title, P.x + P.w / 2, P.y + P.h + 4 + 11 + 6);
    labels.push({ axis: 'xtitle', panel: 0, i: 0, text: data.col_title, font: g.BF, angle: 0 });
    data.bands.forEach(([a, b, colour, text], n) => {
      ctx.strokeStyle = colour; ctx.lineWidth = 3;
      ctx.strokeRect(P.x + a * g.cw, P.y, (b - a) * g.cw, P.h);
      if (!text) return;
      ctx.fillStyle = colour; ctx.font = g.font(g.TF, true); ctx.textBaseline = 'bottom';
      ctx.fillText(text, P.x + ((a + b) / 2) * g.cw, P.y - 4 - (data.band_stagger && n % 2 ? 13 : 0));
      labels.push({ axis: 'band', panel: 0, i: n, text, font: g.TF, angle: 0 });
    });
  };

  // The overlay: the pointed-at cell (a dark line with a white one inside: seen on the palest and the darkest
  // cells) and the selected one (orange), redrawn alone on every move.
  st.drawOver = () => {
    const g = st.geo;
    if (!g) return;
    const dpr = window.devicePixelRatio || 1;
    octx.setTransform(dpr, 0, 0, dpr, 0, 0);
    octx.clearRect(0, 0, g.width, g.height);
    const outline = (p, i, j, colour, lw, inset = 0) => {
      const P = g.panels[p], d = inset + lw / 2;
      octx.strokeStyle = colour; octx.lineWidth = lw;
      octx.strokeRect(P.x + j * g.cw + d, P.y + i * g.ch + d, g.cw - 2 * d, g.ch - 2 * d);
    };
    if (st.selected && single) outline(0, st.selected[0], st.selected[1], '#ff7f0e', Math.min(3, g.cw / 3));
    const mp = single ? -1 : model ? (Number.isInteger(st.marked) ? st.marked : -1) : heads.indexOf(st.marked);
    if (mp >= 0) {  // the head enlarged below: its panel framed in the selection's orange
      const P = g.panels[mp];
      octx.strokeStyle = '#ff7f0e'; octx.lineWidth = 2;
      const d = model ? 2 : 3;  // the model view's gaps are narrower
      octx.strokeRect(P.x - d, P.y - d, P.w + 2 * d, P.h + 2 * d);
    }
    root.dataset.marked = mp >= 0 ? String(st.marked) : '';
    if (st.hover) {
      const lw = Math.min(1.5, g.cw / 4);
      outline(st.hover[0], st.hover[1], st.hover[2], '#111', lw);
      if (Math.min(g.cw, g.ch) >= 8) outline(st.hover[0], st.hover[1], st.hover[2], '#fff', 1.5, lw);
    }
    root.dataset.selected = st.selected ? st.selected.join(',') : '';
    root.dataset.hover = st.hover ? st.hover.join(',') : '';
  };
  const cellAt = (x, y) => {
    const g = st.geo;
    for (let p = 0; p < g.panels.length; p++) {
      const P = g.panels[p];
      if (x >= P.x && x < P.x + P.w && y >= P.y && y < P.y + P.h)
        return [p, Math.min(Tq - 1, Math.floor((y - P.y) / g.ch)), Math.min(Tk - 1, Math.floor((x - P.x) / g.cw))];
    }
    return null;
  };
  const tokenText = (labels, raws, i) => raws[i] && raws[i] !== labels[i] ? `${labels[i]} · ${raws[i]}` : labels[i];
  // The tooltip sits beside the pointed-at cell (right of it, else left, else below or above), never over it; it may
  // use the column's width beyond the canvas, never more.
  const place = (p, i, j) => {
    const g = st.geo, P = g.panels[p], room = Math.max(g.width, st.width), tw = tip.offsetWidth, th = tip.offsetHeight;
    const x0 = P.x + j * g.cw, x1 = x0 + g.cw, y0 = P.y + i * g.ch, y1 = y0 + g.ch, pad = 6;
    let left = null, top;
    if (x1 + pad + tw <= room) left = x1 + pad; else if (x0 - pad - tw >= 0) left = x0 - pad - tw;
    if (left !== null) top = Math.max(0, Math.min(y0, g.height - th));
    else {
      left = Math.max(0, Math.min(x0, room - tw));
      top = y1 + pad + th <= g.height || y0 - pad - th < 0 ? y1 + pad : y0 - pad - th;
    }
    tip.style.left = left + 'px'; tip.style.top = top + 'px';
  };
  const show = (cell) => {
    st.hover = cell;
    st.drawOver();
    if (!cell) { tip.style.display = 'none'; return; }
    st.last = cell;
    const [p, i, j] = cell, n = (p * Tq + i) * Tk + j;
    const lines = [];
    if (features) {  // "token 2: sat", "feature 5" (and the head whose block the column is, in concat)
      const band = data.bands.find((b) => j >= b[0] && j < b[1] && b[3]);
      if (band) lines.push(band[3]);
      lines.push(`${data.token_word} ${i}: ${tokenText(q, data.q_raw, i)}`, `${data.col_title}: ${j}`);
    } else {
      lines.push(panelName(p));
      // positions as the token pickers show them ("query 3: the"): a repeated word is told apart
      lines.push(`${words.query} ${i}: ${tokenText(q, data.q_raw, i)}`,
                 `${words.key} ${j}: ${tokenText(k, data.k_raw, j)}`);
    }
    // a true minus sign (U+2212), as Plotly's hover and colour bars write it
    if (values) lines.push(`${words.value}: ${values[n].toFixed(4).replace('-', '\u2212')}`);
    else if (model) {  // the colour's value (the middle of its step), and where the exact number is
      const v = data.lo + (codes[n] / 255) * (data.hi - data.lo);
      lines.push(`${words.value}: ≈${v.toFixed(3)}`, words.model_exact);
    } else lines.push(words.exact_below);
    if (blocked && blocked[n]) lines.push(words.masked);
    tip.textContent = lines.join('\n');
    tip.style.display = 'block';
    place(p, i, j);
  };
  // A panel's title and key names belong to its head: in the grid a click there picks it, as a click on a cell does.
  const headAt = (x, y) => {
    if (single) return null;
    const g = st.geo;
    const p = g.panels.findIndex((P) => x >= P.x && x < P.x + P.w && y >= P.y - g.titleBand
                                        && y < P.y + P.h + g.xBand);
    return p < 0 ? null : p;
  };
  const local = (e) => { const r = over.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  st.on.mousemove = (e) => {
    const [x, y] = local(e), cell = cellAt(x, y);
    over.style.cursor = data.pick && (cell || (data.pick !== 'cell' && headAt(x, y) !== null)) ? 'pointer' : '';
    if (cell && st.hover && cell.every((v, i) => v === st.hover[i])) return;
    show(cell);
  };
  st.on.mouseleave = () => show(null);
  const choose = (cell) => {
    if (!cell || !data.pick) return;
    const [p, i, j] = cell;
    if (data.pick === 'head') setTriggerValue('pick', { head: heads[p] });
    else if (data.pick === 'panel') { st.marked = p; st.drawOver(); setTriggerValue('pick', { panel: p }); }
    else { st.selected = [i, j]; st.drawOver(); setTriggerValue('pick', { query: i, key: j }); }
  };
  st.on.click = (e) => {
    const [x, y] = local(e), cell = cellAt(x, y), p = cell ? null : headAt(x, y);
    if (cell) choose(cell); else if (p !== null && data.pick === 'head') setTriggerValue('pick', { head: heads[p] });
    else if (p !== null && data.pick === 'panel') choose([p, 0, 0]);
  };
  // The keyboard starts at the outlined cell (the enlarged head), else where the pointer or the keys last were.
  const start = () => (single && st.selected ? [0, ...st.selected]
                       : st.last || (model && Number.isInteger(st.marked) ? [st.marked, 0, 0] : [0, 0, 0]));
  st.on.focus = () => { if (!st.hover) show(start()); };
  st.on.blur = () => show(null);
  st.on.keydown = (e) => {
    const keys = ['Enter', ' ', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'];
    if (!st.hover) {  // the mouse left the focused chart: the keys take it up again
      if (keys.includes(e.key)) { e.preventDefault(); show(st.last || start()); }
      return;
    }
    let [p, i, j] = st.hover;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choose(st.hover); return; }
    const cols = st.geo.cols;
    if (e.key === 'ArrowUp') i -= 1; else if (e.key === 'ArrowDown') i += 1;
    else if (e.key === 'ArrowLeft') j -= 1; else if (e.key === 'ArrowRight') j += 1;
    else return;
    e.preventDefault();
    if (j < 0 && p % cols > 0) { p -= 1; j = Tk - 1; } else if (j >= Tk && p % cols < cols - 1 && p + 1 < H) { p += 1; j = 0; }
    if (i < 0 && p >= cols) { p -= cols; i = Tq - 1; } else if (i >= Tq && p + cols < H) { p += cols; i = 0; }
    show([p, Math.max(0, Math.min(Tq - 1, i)), Math.max(0, Math.min(Tk - 1, j))]);
  };
  root.__hm = {
    labels: [],
    box: (p, i, j) => { const g = st.geo, P = g.panels[p], r = over.getBoundingClientRect();
                        return { x: r.left + P.x + j * g.cw, y: r.top + P.y + i * g.ch, w: g.cw, h: g.ch }; },
    panels: () => st.geo.panels.map((P, p) => ({ head: heads[p], layer: model ? data.layers[p] : null, ...P })),
    values: () => (values ? Array.from(values) : null),  // the exact numbers, panel by panel, row by row
  };
  // The column's width, from the observer's own measure (no layout asked of the page); it also reports once at the
  // start, so a payload drawn at the width last seen is redrawn before the frame is shown if the column changed.
  st.ro = new ResizeObserver((entries) => {
    const W = Math.floor(entries[entries.length - 1].contentRect.width);
    if (W > 0 && W !== st.width) draw(W);
  });
  st.ro.observe(root);
  if (groupEvent && !single) {
    const onHead = (e) => { if (Number.isInteger(e.detail) && e.detail !== st.marked) {
      st.marked = e.detail; st.drawOver(); } };
    window.addEventListener(groupEvent, onHead);
    st.listen = [groupEvent, onHead];
  }
  draw(st.width > 0 ? st.width : Math.floor(root.getBoundingClientRect().width));
  root.dataset.ready = data.sig;
  window.dispatchEvent(new CustomEvent('mha-heatmaps:drawn'));  // the paint gate (paint_gate.js) listens
  announce();
  return () => { if (st.ro) st.ro.disconnect();
                 if (st.listen) window.removeEventListener(st.listen[0], st.listen[1]); };
}
