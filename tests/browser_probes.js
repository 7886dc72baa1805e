// In-page measurements of the browser tests (tests/test_browser.py). Each function
// below is called by name with JSON arguments and returns plain JSON.
"use strict";

const RAW_TEX = /\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\[A-Za-z]{2,}|\$[^$\s][^$\n]{0,80}\$/;
const SKIP_TEXT = "pre, code, script, style, textarea, mjx-container, .highlight";

// At most n characters (code points: never half of a surrogate pair such as 𝑆).
const short = (text, n = 70) => Array.from((text || "").replace(/\s+/g, " ").trim()).slice(0, n).join("");

const isVisible = (el) => {
  const box = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return box.width > 0 && box.height > 0 && style.visibility !== "hidden";
};

// Text of `root` outside code and rendered math, with the element it sits in.
const rawTeX = (root) => {
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (node.parentElement.closest(SKIP_TEXT)) continue;
    const match = RAW_TEX.exec(node.data);
    if (match) {
      const start = Math.max(0, match.index - 25);
      found.push(short(node.data.slice(start, match.index + 45)));
    }
  }
  return found;
};

const texOf = (container) => {
  try {
    const item = MathJax.startup.document.getMathItemsWithin(container)[0];
    return item ? item.math : "";
  } catch (error) {
    return "";
  }
};

const columnOf = (el) => {
  const article = el.closest("article") || document.querySelector("article.bd-article");
  const box = article.getBoundingClientRect();
  const style = getComputedStyle(article);
  return box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
};

const PROBES = {
  // Resolves when MathJax has typeset the page (or at once on a page without it).
  ready: (done) => {
    const settle = () => {
      const mj = window.MathJax;
      if (mj && mj.startup && mj.startup.promise) {
        mj.startup.promise.then(() => done("typeset"), (e) => done(`MathJax failed: ${e}`));
      } else {
        done(document.querySelector(".math") ? "MathJax did not load" : "no math");
      }
    };
    if (document.readyState === "complete") settle();
    else window.addEventListener("load", settle);
  },

  // Open the first solution; true if its content then shows.
  openSolution: () => {
    const button = document.querySelector("div.solution .toggle-button");
    if (!button) return "no solution toggle";
    const box = button.closest("div.solution");
    const body = box.querySelector(".solution-content") || box.lastElementChild;
    if (isVisible(body)) return "solution shown before the toggle was clicked";
    button.scrollIntoView({ block: "center" });
    button.click();
    return isVisible(body) ? "opened" : "the solution stayed hidden after a click";
  },

  // Everything measured at desktop width, after showing every folded part.
  desktop: (boxTypes) => {
    const article = document.querySelector("article.bd-article") || document.body;
    const count = (selector) => document.querySelectorAll(selector).length;

    const math = [...document.querySelectorAll(".math")];
    const formulas = {
      total: math.length,
      unrendered: math.filter((el) => !el.querySelector("mjx-container")).map((el) => short(el.textContent)),
      errors: [...document.querySelectorAll("mjx-merror, [data-mjx-error]")].map(
        (el) => short(el.getAttribute("data-mjx-error") || el.textContent)),
      raw: rawTeX(document.body),
    };

    const images = [...article.querySelectorAll("img")].map((img) => ({
      src: img.getAttribute("src"),
      alt: img.getAttribute("alt") || "",
      loaded: img.complete && img.naturalWidth > 0,
      natural: img.naturalWidth,
      shown: Math.round(img.getBoundingClientRect().width),
      output: !!img.closest(".cell_output"),
    }));

    const boxes = {};
    for (const type of boxTypes) {
      boxes[type] = type === "proof" ? count("div.prf-proof")
        : type === "exercise" || type === "solution" ? count(`div.${type}.admonition`)
        : count(`div.admonition.proof.${type}`);
    }
    const proofs = [...document.querySelectorAll("div.prf-proof")];
    const proofMarks = {
      proofs: proofs.length,
      withoutTitle: proofs.filter((p) => {
        const lead = p.querySelector("em.prf-proof-title");
        return !lead || lead.textContent.trim() !== "Proof." || !isVisible(lead);
      }).length,
      withoutEnd: proofs.filter((p) => {
        const qed = p.querySelector(".prf-qed");
        return !qed || qed.textContent.trim() !== "∎" || !isVisible(qed);
      }).length,
    };

    const ids = {};
    document.querySelectorAll("[id]").forEach((el) => { ids[el.id] = (ids[el.id] || 0) + 1; });
    const duplicateIds = Object.entries(ids).filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`);

    const searchFields = [...document.querySelectorAll(
      "input[type=search], .search-button-field, .search-button, #searchbox input")].filter(isVisible);

    // Show every folded code cell and hidden solution before measuring widths.
    document.querySelectorAll("details").forEach((d) => { d.open = true; });
    document.querySelectorAll(".toggle-hidden").forEach((el) => el.classList.remove("toggle-hidden"));

    const wideEquations = [];
    document.querySelectorAll('mjx-container[display="true"]').forEach((container) => {
      const box = container.closest("div.math") || container.parentElement;
      const mathEl = container.querySelector("mjx-math") || container;
      const eqno = box.querySelector(".eqno");
      const number = eqno ? eqno.textContent.replace("#", "").trim() : "";
      const needed = mathEl.getBoundingClientRect().width + (eqno ? eqno.getBoundingClientRect().width : 0);
      const available = Math.min(box.clientWidth, columnOf(box));
      if (needed > available + 1) {
        wideEquations.push({
          equation: number || short(texOf(container), 50),
          width: Math.round(needed), available: Math.round(available),
        });
      }
    });

    const blocks = new Set(document.querySelectorAll(
      "div.cell_input pre, div[class*='highlight-'] pre"));
    const wideCode = [...blocks].filter((pre) => !pre.closest(".cell_output"))
      .filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
      .map((pre) => {
        const lines = pre.textContent.split("\n");
        const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), "");
        return {
          line: short(longest, 50), characters: longest.length,
          width: pre.scrollWidth, available: pre.clientWidth,
        };
      });

    // A cell's output (printed text, an error, a table) that scrolls sideways in its
    // box or is wider than the text column: the reader sees only part of the line.
    // (Inline math clips a glyph's overhang with overflow: hidden; that is no scrolling.)
    const wideOutputs = [];
    const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
    document.querySelectorAll("div.cell_output").forEach((cell) => {
      const available = columnOf(cell);
      for (const output of cell.children) {
        const scrollers = [output, ...output.querySelectorAll("*")]
          .filter((el) => el.scrollWidth > el.clientWidth + 1 && scrolls(el));
        const width = Math.max(output.getBoundingClientRect().width, output.scrollWidth,
          ...scrollers.map((el) => el.scrollWidth));
        if (scrollers.length === 0 && width <= available + 1) continue;
        const lines = output.textContent.split("\n");
        const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), "");
        wideOutputs.push({
          kind: [...output.classList].filter((c) => c !== "output").join(".") || output.tagName,
          line: short(longest, 50), characters: longest.length,
          width: Math.round(width), available: Math.round(available),
        });
      }
    });

    // A warning or a log line printed by a cell (its stderr): not content for a reader.
    const stderrOutputs = [...document.querySelectorAll("div.cell_output .output.stderr")]
      .map((output) => short(output.textContent.trim().split("\n")[0], 100));

    const notebook = document.querySelector("a.notebook-download");
    const favicon = document.querySelector("link[rel~='icon']");
    return {
      title: document.title,
      formulas, images, boxes, proofMarks, duplicateIds,
      searchFields: searchFields.length,
      links: [...new Set([...document.querySelectorAll("a[href]")].map((a) => a.href))],
      wideEquations, wideCode, wideOutputs, stderrOutputs,
      pageWidth: document.documentElement.scrollWidth,
      viewport: document.documentElement.clientWidth,
      notebook: notebook ? notebook.href : null,
      favicon: favicon ? favicon.href : null,
    };
  },

  // At phone width: does the page scroll sideways, and what sticks out of it?
  phone: () => {
    // The layout viewport: a phone zooms out (innerWidth grows) when a page is too wide.
    const width = document.documentElement.clientWidth;
    // Inside a box that scrolls or clips sideways and itself fits the screen.
    const contained = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible" &&
            a.getBoundingClientRect().right <= width + 1) return true;
      }
      return false;
    };
    // An element, or text overflowing it, that reaches past the right edge; innermost.
    const sticking = [...document.querySelectorAll("article.bd-article *:not(mjx-container *)")]
      .filter((el) => {
        const box = el.getBoundingClientRect();
        const reach = getComputedStyle(el).overflowX === "visible"
          ? Math.max(box.right, box.left + el.scrollWidth) : box.right;
        return box.width > 0 && reach > width + 1 && !contained(el);
      })
      .filter((el, _, all) => !all.some((other) => other !== el && el.contains(other)))
      .slice(0, 8)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} "${short(el.textContent, 40)}"`);
    return {
      viewport: width,
      pageWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
      sticking,
    };
  },

  // search.html?q=...: waits for every result's snippet and its typeset math.
  searchResults: (done) => {
    const started = Date.now();
    const poll = () => {
      const status = (document.querySelector("#search-results p.search-summary") || {}).textContent || "";
      const items = [...document.querySelectorAll("#search-results ul.search > li")];
      // A page result gets a snippet (p.context), an object result a description (span).
      const pending = items.some((li) => {
        const s = li.querySelector("p.context");
        if (!s) return !li.querySelector(":scope > span");
        return /[\ue000-\uf8ff]/.test(s.textContent) ||
          (s.textContent.includes("\\(") && !s.querySelector("mjx-container"));
      });
      const finished = /finished|did not match/i.test(status);
      // 30 s: on a loaded 2-core machine a page of results took more than 10 s to finish
      if ((finished && !pending) || Date.now() - started > 30000) {
        const mj = window.MathJax;
        const typeset = mj && mj.startup && mj.startup.promise ? mj.startup.promise : Promise.resolve();
        typeset.then(() => done({
          status: short(status, 120),
          timedOut: !(finished && !pending),
          results: items.map((li) => {
            const snippet = li.querySelector("p.context");
            return {
              href: li.querySelector("a").href,
              title: short(li.querySelector("a").textContent),
              snippet: snippet ? short(snippet.innerText, 300) : "",
              raw: snippet ? rawTeX(snippet) : [],
              errors: snippet ? snippet.querySelectorAll("mjx-merror, [data-mjx-error]").length : 0,
              formulas: snippet ? snippet.querySelectorAll("mjx-container").length : 0,
            };
          }),
        }));
      } else {
        setTimeout(poll, 100);
      }
    };
    poll();
  },
};
