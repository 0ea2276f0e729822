// The sidebar's link box (share.py link_box): the address bar is the truth; text only via textContent.
export default function(component) {
  const { parentElement } = component;
  // Called again with new data on every rerun, without the previous call's cleanup: keep one timer per element,
  // reading the newest data (an older timer with an older lang would otherwise overwrite the box).
  parentElement.__mhaData = component.data;
  if (parentElement.__mhaTimer) clearInterval(parentElement.__mhaTimer);
  const data = () => parentElement.__mhaData || {};
  const code = parentElement.querySelector('.mha-url');
  const button = parentElement.querySelector('.mha-copy');
  const live = () => {
    try {
      const url = new URL(window.location.href);
      for (const [k, v] of Object.entries(data().ensure || {})) {
        if (!url.searchParams.has(k)) url.searchParams.set(k, v);
      }
      return url.toString();
    } catch (e) {
      return data().link;
    }
  };
  // Shown readable and still exact: escapes are shown as their characters, Hangul and ASCII punctuation alike,
  // except those that would change the link when the text is selected by hand, or when the clipboard is refused
  // (a classroom server on plain http) and the button selects it instead: % itself, what a URL reserves
  // (& = + # ? / : ; @ $ ,), spaces, controls (a line break) and other invisible characters stay escaped.
  const KEEP = new Set([...'%&=+#?/:;@$,'].map((c) => c.charCodeAt(0)));
  const decoded = (esc) => { try { return decodeURIComponent(esc); } catch (e) { return esc; } };
  const readable = (u) => u.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const esc = run.match(/%[0-9A-Fa-f]{2}/g);
    let out = '';
    for (let i = 0; i < esc.length;) {
      const b = parseInt(esc[i].slice(1), 16);
      const n = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;  // a UTF-8 character's bytes
      const part = esc.slice(i, i + n).join('');
      const text = decoded(part);
      const kept = text === part  // not a whole character (decoding failed)
        || (b < 0x80 && (KEEP.has(b) || b <= 0x20 || b === 0x7f)) || /[\p{Cc}\p{Cf}\p{Z}]/u.test(text);
      out += kept ? part : text;
      i += n;
    }
    return out;
  });
  // The address bar says lang too: Streamlit leaves it out after a page switch. (The language control has no
  // default, so Streamlit itself never removes it on a switch of language: this only fills in a missing one.)
  const keepInAddressBar = () => {
    try {
      const url = new URL(window.location.href);
      let missing = false;
      for (const [k, v] of Object.entries(data().ensure || {})) {
        if (!url.searchParams.has(k)) { url.searchParams.set(k, v); missing = true; }
      }
      if (missing) window.history.replaceState(window.history.state, '', url.toString());
    } catch (e) { /* the address stays as it is; the box still shows the full link */ }
  };
  const show = () => {
    keepInAddressBar();
    const u = readable(live());
    if (code.textContent !== u) code.textContent = u;
  };
  button.textContent = data().copy;
  show();
  const timer = setInterval(show, 600);
  parentElement.__mhaTimer = timer;
  button.onclick = async () => {
    const u = live();
    try {
      await navigator.clipboard.writeText(u);
      button.textContent = data().copied;
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      button.textContent = data().failed;
    }
    setTimeout(() => { button.textContent = data().copy; }, 1600);
  };
  return () => clearInterval(timer);
}
