"""WCAG AA contrast of the page `hitthat serve` serves, measured in a real browser (a `Browser` of
tools/browser_test.py): every visible text, and every placeholder, against what is behind it, from
the colours Chromium computed, in the light theme and the dark one."""


CONTRAST = """
// Every visible piece of text against what is behind it, from the colours Chromium computed:
// WCAG 2's contrast ratio, at least 4.5 (3 for large text: 24 px, or 18.66 px bold). A disabled
// control is exempt, as WCAG has it.
const parse = (c) => {
  const m = c.match(/rgba?\\(([^)]+)\\)/);
  if (!m) return null;
  const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
const luminance = (c) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
};
const background = (e) => {
  const layers = [];
  for (let n = e; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] === 1) break; }
  }
  let colour = parse(getComputedStyle(document.documentElement).backgroundColor);
  if (!colour || colour[3] < 1) colour = matchMedia('(prefers-color-scheme: dark)').matches ? [0, 0, 0, 1] : [255, 255, 255, 1];
  for (const layer of layers.reverse()) colour = over(layer, colour);
  return colour;
};
const failures = [];
let checked = 0;
for (const e of document.querySelectorAll('body *')) {
  const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own || !e.getClientRects().length || e.closest('[hidden]') || e.closest(':disabled')) continue;
  const style = getComputedStyle(e);
  if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
  const behind = background(e);
  const fg = over(parse(style.color), behind);
  const [a, b] = [luminance(fg), luminance(behind)].sort((x, y) => y - x);
  const ratio = (a + 0.05) / (b + 0.05);
  const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
  const least = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
  checked++;
  if (ratio < least) failures.push({text: e.textContent.trim().slice(0, 60), ratio: Math.round(ratio * 100) / 100,
    least, color: style.color, behind: `rgb(${behind.slice(0, 3).map(Math.round).join(', ')})`});
}
// A placeholder is text too, shown where a field is empty.
for (const input of document.querySelectorAll('input[placeholder]')) {
  if (input.value || !input.getClientRects().length || input.closest('[hidden]')) continue;
  const behind = background(input);
  const fg = over(parse(getComputedStyle(input, '::placeholder').color), behind);
  const [a, b] = [luminance(fg), luminance(behind)].sort((x, y) => y - x);
  const ratio = (a + 0.05) / (b + 0.05);
  checked++;
  if (ratio < 4.5) failures.push({text: 'placeholder ' + input.placeholder, ratio: Math.round(ratio * 100) / 100, least: 4.5});
}
return {checked, failures};
"""


def set_theme(browser, theme):
    """The system's colour scheme as the page sees it: 'light' or 'dark'."""
    browser.do("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {
        "features": [{"name": "prefers-color-scheme", "value": theme}]}})


def measure(browser):
    """The page as it is now, measured in the light theme and the dark one (left light after):
    {theme: {"checked": texts measured, "failures": those below AA}}."""
    reports = {}
    for theme in ("light", "dark"):
        set_theme(browser, theme)
        dark = browser.js("return matchMedia('(prefers-color-scheme: dark)').matches")
        report = browser.js(CONTRAST)
        if dark != (theme == "dark"):
            report["failures"].append({"text": f"the {theme} theme could not be emulated"})
        reports[theme] = report
    set_theme(browser, "light")
    return reports
