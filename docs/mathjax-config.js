// MathJax 2 settings of the documentation site: typeset with the TeX web fonts that are
// copied next to the pages, so that formulas look the same on every machine and no font
// outside the site is needed.
MathJax.Hub.Config({
  "HTML-CSS": {
    availableFonts: ["TeX"],
    preferredFont: "TeX",
    webFont: "TeX",
    imageFont: null
  }
});
