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
  // Shown readable and still exact: each run of escaped non-ASCII bytes (Hangul) shown as its characters, every
  // ASCII escape kept (%0A a line break, %25 a percent sign, %26 an ampersand) and so are invisible characters
  // (controls, format marks, spaces of any kind). The text selected by hand, or when the clipboard is refused (a
  // classroom server on plain http), is then the same link.
  const decoded = (run) => { try { return decodeURIComponent(run); } catch (e) { return run; } };
  const readable = (u) => u.replace(/(?:%[89A-Fa-f][0-9A-Fa-f])+/g, (run) => {
    const text = decoded(run);
    return /[\p{Cc}\p{Cf}\p{Z}]/u.test(text) ? run : text;
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
