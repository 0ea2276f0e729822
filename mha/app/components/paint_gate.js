// The paint gate (paint_gate.py): tells the server once that a canvas heatmap of the page has drawn (heatmap_view.js
// marks its root data-ready and fires 'mha-heatmaps:drawn' on window), or that WAIT_MS passed without one; the
// server then sends the page's Plotly charts, whose script would otherwise have held the first picture back.
const drawnNow = () => [...document.querySelectorAll('*')].some(
  (e) => e.shadowRoot && e.shadowRoot.querySelector('.hm[data-ready]'));

export default function(component) {
  const { data, setTriggerValue } = component;
  let sent = false;
  const send = () => {
    if (sent) return;
    sent = true;
    setTriggerValue('ready', true);
  };
  const onDrawn = () => requestAnimationFrame(send);  // the picture on screen first
  window.addEventListener('mha-heatmaps:drawn', onDrawn);
  const timer = setTimeout(send, (data && data.wait_ms) || 4000);
  if (drawnNow()) onDrawn();
  return () => { window.removeEventListener('mha-heatmaps:drawn', onDrawn); clearTimeout(timer); };
}
