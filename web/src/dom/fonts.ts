// Chromium asks its browser process, synchronously, for each font family it has not matched
// yet and for each new size and weight of a font (on Linux, "FontRenderStyleForStrike"). The
// results page uses fonts the landing page does not (the monospace stack, bold sizes), so its
// first layout made a dozen such calls; with the check's workers busy on a 2-core machine each
// was slow and the page froze, mostly waiting, as the verdicts arrived. Laying out one hidden
// sample of every font the stylesheet names before any worker starts makes those calls while
// they are quick (docs/benchmarks.md, Responsiveness).

/** The fonts (shorthand or family, size, weight, style) that the page's style rules set. */
function stylesheetFonts(): string[] {
  const fonts = new Set<string>();
  const visit = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      if ('cssRules' in rule && !(rule instanceof CSSStyleRule)) visit((rule as CSSGroupingRule).cssRules);
      if (!(rule instanceof CSSStyleRule)) continue;
      const s = rule.style;
      // a shorthand with var() leaves its longhands empty until computed: keep it whole
      if (s.font.includes('var(')) { fonts.add(`font:${s.font}`); continue; }
      if (!s.fontFamily && !s.fontSize && !s.fontWeight && !s.fontStyle) continue;
      fonts.add(`font-family:${s.fontFamily || 'inherit'};font-size:${s.fontSize || 'inherit'};font-weight:${s.fontWeight || 'inherit'};font-style:${s.fontStyle || 'inherit'}`);
    }
  };
  for (const sheet of Array.from(document.styleSheets)) {
    try { visit(sheet.cssRules); } catch { /* a cross-origin sheet: not ours */ }
  }
  return [...fonts];
}

/** Lays out a hidden sample of each stylesheet font, at once (see above). */
export function warmFonts() {
  const box = document.createElement('div');
  box.setAttribute('aria-hidden', 'true');
  box.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden;contain:layout style';
  for (const font of stylesheetFonts()) {
    const span = document.createElement('span');
    span.style.cssText = font;
    span.textContent = 'Tx0 r(x)=1 \u2192 SER';
    box.append(span);
  }
  document.body.append(box);
  void box.offsetWidth;  // the layout that makes the calls
  box.remove();
}
