/* Search snippets show math as the pages do, never as raw TeX.
 *
 * Sphinx cuts each snippet out of the text of the result page, where a formula is its
 * TeX source, and its 240-character window may cut a formula in half. Here every inline
 * formula becomes one private-use character before the snippet is cut (so it is never
 * cut) and MathJax typesets it once the snippet is on the page; a display equation
 * becomes an ellipsis. Page chrome inside role=main (buttons, the page's table of contents,
 * "Show code cell source") is left out. Loaded on search.html only (book/_ext/pcabook_html.py).
 */
"use strict";
(() => {
  const FIRST = 0xe000;
  const LAST = 0xf8ff; // the Unicode private use area: one character per formula
  const TOKEN = /[\ue000-\uf8ff]/;
  const formulas = [];
  const tokens = new Map();

  const tokenFor = (tex) => {
    if (!tokens.has(tex)) {
      if (FIRST + formulas.length > LAST) return " … ";
      tokens.set(tex, String.fromCharCode(FIRST + formulas.length));
      formulas.push(tex);
    }
    return tokens.get(tex);
  };

  // The page's text as a snippet should show it: no buttons, sidebars or fold labels
  // (the theme puts them inside role=main), one token per formula; and, as Sphinx's own
  // Search.htmlToText removes them, no header links, scripts or styles.
  const CHROME = ".bd-header-article, .bd-sidebar-secondary, .prev-next-area, " +
    ".bd-footer-article, footer, summary, .headerlink, .toggle-button, .onlyprint, " +
    "script, style";
  // Code blocks (Pygments: <div class="highlight"><pre> holding only flat <span>s around
  // escaped text) lose their spans before parsing: the same text in a third of the
  // elements, and a page parses 2-3 times faster (a search parses up to 24 pages).
  const HIGHLIGHTED = /<div class="highlight"><pre>[\s\S]*?<\/pre><\/div>/g;
  const SPAN_TAG = /<\/?span\b[^>]*>/g;
  const withoutTeX = (htmlString) => {
    const plainCode = htmlString.replace(HIGHLIGHTED, (block) => block.replace(SPAN_TAG, ""));
    const page = new DOMParser().parseFromString(plainCode, "text/html");
    page.querySelectorAll(CHROME).forEach((el) => el.remove());
    page.querySelectorAll("div.math").forEach((el) => el.replaceWith(" … "));
    page.querySelectorAll("span.math").forEach((el) => {
      const tex = el.textContent.trim().replace(/^\\\(/, "").replace(/\\\)$/, "");
      el.replaceWith(tokenFor(tex));
    });
    return page;
  };

  // Sphinx's Search.htmlToText on the page parsed once: the text of the anchored block
  // of role=main, or of role=main. Where neither is found, Sphinx's own function (on the
  // cleaned page) says so in the console as it always did.
  const pageText = (htmlString, anchor, sphinxHtmlToText) => {
    const page = withoutTeX(htmlString);
    // By id, not by a selector: exercise solutions' ids hold a "/" (#book/01_...-solution-6),
    // which is no CSS selector, and Sphinx's querySelector would throw on it.
    const main = page.querySelector('[role="main"]');
    const target = anchor ? page.getElementById(decodeURIComponent(anchor.slice(1))) : main;
    const block = target && main && main.contains(target) ? target : null;
    const text = block ? block.textContent : sphinxHtmlToText(page.documentElement.outerHTML, anchor);
    return text.replace(/\s+/g, " ");
  };

  // Put the formulas back into a snippet as TeX MathJax will typeset; true if any.
  const restoreFormulas = (snippet) => {
    const walker = document.createTreeWalker(snippet, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    let restored = false;
    for (const text of texts) {
      if (!TOKEN.test(text.data)) continue;
      text.data = text.data.replace(new RegExp(TOKEN.source, "g"), (token) => {
        const tex = formulas[token.charCodeAt(0) - FIRST];
        return tex === undefined ? token : `\\(${tex}\\)`;
      });
      restored = true;
    }
    return restored;
  };

  const mathJaxReady = () =>
    window.MathJax && MathJax.startup && MathJax.startup.promise
      ? MathJax.startup.promise
      : new Promise((resolve) => setTimeout(resolve, 50)).then(mathJaxReady);

  // One typeset at a time: MathJax 3.2 fails two concurrent typesets that both load a
  // TeX package on demand (\boldsymbol: "Undefined control sequence").
  let queue = Promise.resolve();
  const typeset = (snippet) => {
    queue = queue.then(mathJaxReady).then(() => MathJax.typesetPromise([snippet]))
      .catch((error) => console.error("MathJax could not typeset a search snippet:", error));
  };

  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        const snippets = node.matches("p.context") ? [node] : node.querySelectorAll("p.context");
        for (const snippet of snippets) {
          if (restoreFormulas(snippet)) typeset(snippet);
        }
      }
    }
  }).observe(document, { childList: true, subtree: true });

  document.addEventListener("DOMContentLoaded", () => {
    if (typeof Search === "undefined") return;
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => pageText(htmlString, anchor, htmlToText);
  });
})();
