// Small SVG plots for the lookup page: horizontal bars with names, columns, and a labelled matrix.
// No framework and nothing fetched from elsewhere: the page must work without network access.
"use strict";
const Plots = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  function svg(width, height, label) {
    return el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
  }

  const fmt = n => Number(n).toLocaleString("en-US");

  /** One horizontal bar per item ({label, value}), the label left of it and the value after it. */
  function bars(items, label) {
    const labelWidth = Math.min(260, 12 + 7 * Math.max(4, ...items.map(i => String(i.label).length)));
    const row = 18, plot = 300, width = labelWidth + plot + 90;
    const max = Math.max(1, ...items.map(i => i.value));
    const s = svg(width, items.length * row + 6, label);
    items.forEach((it, k) => {
      const y = 3 + k * row;
      const w = Math.max(1, Math.round(plot * it.value / max));
      const g = el("g", { class: "item", "data-label": it.label, "data-value": it.value });
      g.appendChild(el("text", { x: labelWidth - 6, y: y + 12, "text-anchor": "end", class: "name" }, it.label));
      const r = el("rect", { x: labelWidth, y: y + 2, width: w, height: row - 5, class: "bar" });
      r.appendChild(el("title", {}, `${it.label}: ${fmt(it.value)}`));
      g.appendChild(r);
      g.appendChild(el("text", { x: labelWidth + w + 4, y: y + 12, class: "value" }, fmt(it.value)));
      s.appendChild(g);
    });
    return s;
  }

  /** Vertical columns ({label, value}) over an axis; labels under every n-th column so they do not overlap. */
  function columns(items, label) {
    const col = Math.max(4, Math.min(28, Math.floor(900 / Math.max(1, items.length))));
    const height = 160, bottom = 40, left = 50, width = left + items.length * col + 10;
    const max = Math.max(1, ...items.map(i => i.value));
    const s = svg(width, height + bottom, label);
    s.appendChild(el("line", { x1: left, y1: height, x2: width - 5, y2: height, class: "axis" }));
    s.appendChild(el("text", { x: left - 4, y: 12, "text-anchor": "end" }, fmt(max)));
    s.appendChild(el("text", { x: left - 4, y: height, "text-anchor": "end" }, "0"));
    // a label under every n-th column, n such that labels do not overlap
    const every = Math.max(1, Math.ceil((8 + 7 * Math.max(1, ...items.map(i => String(i.label).length))) / col));
    items.forEach((it, k) => {
      const x = left + k * col;
      const h = Math.max(1, Math.round((height - 16) * it.value / max));
      const g = el("g", { class: "item", "data-label": it.label, "data-value": it.value });
      const r = el("rect", { x: x + 1, y: height - h, width: col - 2, height: h, class: "bar" });
      r.appendChild(el("title", {}, `${it.label}: ${fmt(it.value)}`));
      g.appendChild(r);
      if (k % every === 0) {
        g.appendChild(el("text", { x: x + col / 2, y: height + 14, "text-anchor": "middle", class: "name" },
          it.label));
      }
      s.appendChild(g);
    });
    return s;
  }

  /** A square matrix of counts with the names on both axes; darker is more, the count in each cell. */
  function matrix(names, values, label) {
    const cell = 34, left = 12 + 7 * Math.max(4, ...names.map(n => n.length));
    // the column names are rotated: the last one reaches past the matrix by about half its length
    const top = left, size = names.length * cell;
    const s = svg(left + size + Math.round(left * 0.5) + 10, top + size + 10, label);
    const max = Math.max(1, ...values.flat());
    names.forEach((n, k) => {
      s.appendChild(el("text", { x: left - 6, y: top + k * cell + cell / 2 + 4, "text-anchor": "end",
        class: "name row-name" }, n));
      const cx = left + k * cell + cell / 2;
      s.appendChild(el("text", { x: cx, y: top - 6, transform: `rotate(-60 ${cx} ${top - 6})`,
        class: "name col-name" }, n));
    });
    values.forEach((row, i) => row.forEach((v, j) => {
      const shade = v === 0 ? 248 : Math.round(225 - 170 * v / max);
      const fill = v === 0 ? "rgb(248,249,250)" : `rgb(${shade},${Math.round(shade * 0.9 + 20)},255)`;
      const g = el("g", { class: "cell", "data-row": names[i], "data-col": names[j], "data-value": v });
      const r = el("rect", { x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1, fill });
      r.appendChild(el("title", {}, `${names[i]} & ${names[j]}: ${fmt(v)}`));
      g.appendChild(r);
      g.appendChild(el("text", { x: left + j * cell + cell / 2, y: top + i * cell + cell / 2 + 4,
        "text-anchor": "middle", class: shade < 140 ? "cell dark" : "cell" }, v ? fmt(v) : ""));
      s.appendChild(g);
    }));
    return s;
  }

  return { bars, columns, matrix, fmt };
})();
