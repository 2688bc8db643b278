/*
 * A small SVG plotter for the EventIndex console: line (time series), bar and scatter charts with axes, ticks and
 * grid lines. No dependency. Every chart is an <svg class="chart" role="img"> whose aria-label says what it shows;
 * the data are drawn as path.series, rect.bar and circle.point elements (the browser tests count them).
 */
'use strict';
window.Plot = (function () {
  const NS = 'http://www.w3.org/2000/svg';
  const W = 640, H = 280, M = { left: 64, right: 16, top: 24, bottom: 46 };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, String(v)));
    if (parent) parent.appendChild(e);
    return e;
  }

  function text(parent, x, y, s, attrs) {
    const t = el('text', Object.assign({ x: x, y: y }, attrs || {}), parent);
    t.textContent = s;
    return t;
  }

  /** About n round tick values covering [lo, hi]. */
  function ticks(lo, hi, n) {
    if (!(hi > lo)) { hi = lo + 1; }
    const raw = (hi - lo) / n;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(f => f * mag).find(s => s >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) { out.push(v); }
    return out;
  }

  /** Round times (whole minutes, hours or days, UTC) for an axis from lo to hi, at most about n. */
  function timeTicks(lo, hi, n) {
    const steps = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080].map(m => m * 60000);
    const step = steps.find(s => (hi - lo) / s <= n) || steps[steps.length - 1];
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) { out.push(v); }
    return out;
  }

  function fmt(v) {
    const a = Math.abs(v);
    if (a >= 1e9) { return (v / 1e9).toFixed(a >= 1e10 ? 0 : 1) + 'G'; }
    if (a >= 1e6) { return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + 'M'; }
    if (a >= 1e3) { return (v / 1e3).toFixed(a >= 1e4 ? 0 : 1) + 'k'; }
    if (a === 0 || a >= 1) { return String(Math.round(v * 10) / 10); }
    return v.toPrecision(2);
  }

  function timeFmt(ms, span) {
    const d = new Date(ms);
    const hm = d.toISOString().substring(11, 16);
    return span > 2 * 86400000 ? d.toISOString().substring(5, 10) + ' ' + hm : hm;
  }

  function frame(container, label, empty) {
    container.textContent = '';
    const svg = el('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img', 'aria-label': label },
      container);
    el('title', {}, svg).textContent = label;
    if (empty) {
      text(svg, W / 2, H / 2, 'no data yet', { 'text-anchor': 'middle', class: 'empty' });
    }
    return svg;
  }

  function axes(svg, x, y, xTicks, yTicks, xFmt, opts) {
    const grid = el('g', { class: 'grid' }, svg);
    const ax = el('g', { class: 'axis' }, svg);
    yTicks.forEach(v => {
      el('line', { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }, grid);
      text(ax, M.left - 6, y(v) + 4, fmt(v), { 'text-anchor': 'end' });
    });
    xTicks.forEach(v => {
      el('line', { x1: x(v), x2: x(v), y1: H - M.bottom, y2: H - M.bottom + 4 }, ax);
      text(ax, x(v), H - M.bottom + 16, xFmt(v), { 'text-anchor': 'middle' });
    });
    el('line', { x1: M.left, x2: W - M.right, y1: H - M.bottom, y2: H - M.bottom }, ax);
    el('line', { x1: M.left, x2: M.left, y1: M.top, y2: H - M.bottom }, ax);
    if (opts.xLabel) { text(ax, (M.left + W - M.right) / 2, H - 8, opts.xLabel, { 'text-anchor': 'middle' }); }
    if (opts.yLabel) {
      text(ax, 14, (M.top + H - M.bottom) / 2, opts.yLabel,
        { 'text-anchor': 'middle', transform: 'rotate(-90 14 ' + (M.top + H - M.bottom) / 2 + ')' });
    }
  }

  function scale(lo, hi, a, b) {
    const span = hi > lo ? hi - lo : 1;
    return v => a + (v - lo) / span * (b - a);
  }

  /** series: [{name, points: [[timeMillis, y], ...]}]; a gap of more than opts.gap ms breaks the line. */
  function line(container, series, opts) {
    const all = series.flatMap(s => s.points);
    const svg = frame(container, opts.label, all.length === 0);
    if (all.length === 0) { return svg; }
    let x0 = Math.min(...all.map(p => p[0])), x1 = Math.max(...all.map(p => p[0]));
    if (opts.from !== undefined) { x0 = Math.min(x0, opts.from); }
    if (opts.to !== undefined) { x1 = Math.max(x1, opts.to); }
    const yMax = Math.max(1e-9, ...all.map(p => p[1])) * 1.1;
    const x = scale(x0, x1, M.left, W - M.right), y = scale(0, yMax, H - M.bottom, M.top);
    const xt = timeTicks(x0, x1, 7);
    axes(svg, x, y, xt, ticks(0, yMax, 5), v => timeFmt(v, x1 - x0), opts);
    const legend = el('g', { class: 'legend' }, svg);
    series.forEach((s, i) => {
      let d = '', prev = null;
      s.points.forEach(p => {
        const cmd = prev === null || (opts.gap && p[0] - prev > opts.gap) ? 'M' : 'L';
        d += cmd + x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1) + ' ';
        prev = p[0];
      });
      if (s.points.length === 1) { // one point: a short flat stroke so that it shows
        d += 'l4,0';
      }
      el('path', { d: d.trim(), class: 'series s' + i, 'data-points': s.points.length }, svg)
        .appendChild(el('title', {})).textContent = s.name;
      if (s.points.length <= 120) { // sparse series: a marker per point, so that a lone minute shows
        s.points.forEach(p => el('circle', { cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: 3,
          class: 'marker s' + i }, svg));
      }
      el('rect', { x: M.left + 10 + i * 170, y: 6, width: 12, height: 12, class: 's' + i }, legend);
      text(legend, M.left + 26 + i * 170, 16, s.name);
    });
    return svg;
  }

  /** bars: [{label, value, title}]; labels are drawn for at most ~12 bars. */
  function bars(container, data, opts) {
    const svg = frame(container, opts.label, data.length === 0);
    if (data.length === 0) { return svg; }
    const yMax = Math.max(1e-9, ...data.map(b => b.value)) * 1.1;
    const n = data.length, inner = W - M.left - M.right, bw = inner / n;
    const y = scale(0, yMax, H - M.bottom, M.top);
    const every = Math.max(1, Math.ceil(n / 12));
    const xt = data.map((b, i) => i).filter(i => i % every === 0);
    axes(svg, i => M.left + (i + .5) * bw, y, xt, ticks(0, yMax, 5), i => data[i].label, opts);
    data.forEach((b, i) => {
      const top = y(b.value);
      el('rect', { x: (M.left + i * bw + Math.min(2, bw * .1)).toFixed(1), y: top.toFixed(1),
        width: Math.max(1, bw - Math.min(4, bw * .2)).toFixed(1), height: Math.max(0, H - M.bottom - top).toFixed(1),
        class: 'bar' }, svg).appendChild(el('title', {})).textContent = b.title || (b.label + ': ' + fmt(b.value));
    });
    return svg;
  }

  /** points: [{x, y, title}] on linear axes from 0. */
  function scatter(container, points, opts) {
    const svg = frame(container, opts.label, points.length === 0);
    if (points.length === 0) { return svg; }
    const xMax = Math.max(1e-9, ...points.map(p => p.x)) * 1.05, yMax = Math.max(1e-9, ...points.map(p => p.y)) * 1.1;
    const x = scale(0, xMax, M.left, W - M.right), y = scale(0, yMax, H - M.bottom, M.top);
    axes(svg, x, y, ticks(0, xMax, 6).filter(v => v <= xMax), ticks(0, yMax, 5), fmt, opts);
    points.forEach(p => {
      el('circle', { cx: x(p.x).toFixed(1), cy: y(p.y).toFixed(1), r: 4, class: 'point' }, svg)
        .appendChild(el('title', {})).textContent = p.title;
    });
    return svg;
  }

  return { line: line, bars: bars, scatter: scatter, fmt: fmt };
}());
