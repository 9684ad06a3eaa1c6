(function () {
'use strict';
var svg = document.getElementById('ftflame');
if (!svg) return;
function num(a) { return parseFloat(svg.getAttribute(a)); }
var W = num('data-width'), PAD = num('data-pad'), Y0 = num('data-y0'),
    FH = num('data-fh'), INV = svg.getAttribute('data-inv') === '1';
var CW = 0.59 * 12, FULL = W - 2 * PAD, EPS = 0.002;
function byId(i) { return document.getElementById(i); }
var details = byId('ft-details'), matchedEl = byId('ft-matched'),
    resetEl = byId('ft-reset'), searchEl = byId('ft-search');
var frames = [], gs = svg.querySelectorAll('g.f'), i;
for (i = 0; i < gs.length; i++) {
  var g = gs[i], r = g.querySelector('rect'), t = g.querySelector('text');
  var ti = g.querySelector('title'), tt = ti ? ti.textContent : '';
  var nl = tt.indexOf('\n'), y = parseFloat(r.getAttribute('y'));
  g._ft = i;
  frames.push({ g: g, r: r, t: t, name: nl < 0 ? tt : tt.substring(0, nl),
    info: nl < 0 ? '' : tt.substring(nl + 1), x: parseFloat(r.getAttribute('x')),
    w: parseFloat(r.getAttribute('width')), fill: r.getAttribute('fill'),
    d: Math.round((INV ? y - Y0 : Y0 - y) / FH), merged: g.classList.contains('m') });
}
function label(f, w) {
  var fit = Math.floor((w - 6) / CW);
  if (fit < 3 || f.merged && w < 60) return '';
  var n = f.merged ? f.info : f.name;
  return n.length <= fit ? n : n.substring(0, fit - 2) + '..';
}
function place(f, x, w, show, parent) {
  f.g.style.display = show ? '' : 'none';
  if (!show) return;
  f.g.classList.toggle('parent', parent);
  f.r.setAttribute('x', x.toFixed(3)); f.r.setAttribute('width', w.toFixed(3));
  if (f.t) { f.t.setAttribute('x', (x + 3).toFixed(3)); f.t.textContent = label(f, w); }
}
var zoomed = null;
function zoom(z) {
  var scale = FULL / z.w, shown = 0;
  frames.forEach(function (f) {
    if (f.d >= z.d && f.x >= z.x - EPS && f.x + f.w <= z.x + z.w + EPS) {
      place(f, PAD + (f.x - z.x) * scale, f.w * scale, true, false); shown++;
    } else if (f.d < z.d && f.x <= z.x + EPS && f.x + f.w >= z.x + z.w - EPS) {
      place(f, PAD, FULL, true, true); shown++;
    } else {
      place(f, 0, 0, false, false);
    }
  });
  zoomed = z; resetEl.style.opacity = '1';
  return shown;
}
function unzoom() {
  frames.forEach(function (f) { place(f, f.x, f.w, true, false); });
  zoomed = null; resetEl.style.opacity = '0';
}
var searching = false;
function clearSearch() {
  frames.forEach(function (f) { f.r.setAttribute('fill', f.fill); });
  matchedEl.textContent = ''; searchEl.textContent = 'Search'; searching = false;
}
function search(term) {
  var re;
  try { re = new RegExp(term); }
  catch (e) { re = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')); }
  var hits = [];
  frames.forEach(function (f) {
    if (!f.merged && f.d > 0 && re.test(f.name)) { f.r.setAttribute('fill', 'rgb(230,0,230)'); hits.push(f); }
    else f.r.setAttribute('fill', f.fill);
  });
  hits.sort(function (a, b) { return a.x - b.x; });
  var sum = 0, end = -1;
  hits.forEach(function (h) {
    var e = h.x + h.w;
    if (h.x >= end) { sum += h.w; end = e; } else if (e > end) { sum += e - end; end = e; }
  });
  var pct = 100 * sum / FULL;
  matchedEl.textContent = 'Matched: ' + (pct > 0 && pct < 0.1 ? pct.toPrecision(2) : pct.toFixed(1)) + '%';
  searchEl.textContent = 'Reset Search'; searching = true;
  return { count: hits.length, pct: pct };
}
function askSearch() {
  if (searching) { clearSearch(); return; }
  var term = window.prompt('Search for (regular expression):', '');
  if (term) search(term);
}
function frameOf(e) {
  var g = e.target && e.target.closest ? e.target.closest('g.f') : null;
  return g ? frames[g._ft] : null;
}
svg.addEventListener('click', function (e) { var f = frameOf(e); if (f) zoom(f); });
svg.addEventListener('mouseover', function (e) {
  var f = frameOf(e); if (f) details.textContent = (f.merged ? '' : f.name + ' ') + f.info;
});
svg.addEventListener('mouseout', function () { details.textContent = ' '; });
resetEl.addEventListener('click', function (e) { e.stopPropagation(); unzoom(); });
searchEl.addEventListener('click', function (e) { e.stopPropagation(); askSearch(); });
window.addEventListener('keydown', function (e) {
  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); askSearch(); }
  else if (e.key === 'Escape') { unzoom(); clearSearch(); }
});
function mark(text) {
  var m = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  m.setAttribute('id', 'ft-selftest'); m.setAttribute('x', PAD); m.setAttribute('y', 14);
  m.setAttribute('class', 'small'); m.textContent = text; svg.appendChild(m);
}
// The self-check (URL #selftest) drives zoom and search the way a click
// would and reports in the DOM, for headless browser tests.
function selftest() {
  if (!frames.length) throw new Error('no frames');
  var z = null, before = frames.length;
  frames.forEach(function (f) { if (f.d >= 2 && !f.merged && (!z || f.w > z.w)) z = f; });
  if (!z) frames.forEach(function (f) { if (f.d === 1 && !f.merged && (!z || f.w > z.w)) z = f; });
  if (!z) return 'ftflame-selftest ok frames=' + before + ' (no stacks)';
  var shown = zoom(z);
  if (Math.abs(parseFloat(z.r.getAttribute('width')) - FULL) > 0.5) throw new Error('zoomed frame not full width');
  if (shown > before) throw new Error('zoom shows too many');
  unzoom();
  if (Math.abs(parseFloat(z.r.getAttribute('width')) - z.w) > 0.01) throw new Error('unzoom did not restore');
  var s = search(z.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!s.count || !(s.pct > 0)) throw new Error('search found nothing for ' + z.name);
  var txt = matchedEl.textContent;
  clearSearch();
  return 'ftflame-selftest ok frames=' + before + ' zoom=' + shown + ' search=' + s.count + ' ' + txt;
}
var h = window.location.hash || '';
try { h = decodeURIComponent(h); } catch (e) { /* keep it raw */ }
var m = /search=([^&]*)/.exec(h);
if (m && m[1]) search(m[1]);
var zm = /zoom=([^&]*)/.exec(h), zf = null;
if (zm && zm[1]) frames.forEach(function (f) { if (f.name === zm[1] && (!zf || f.w > zf.w)) zf = f; });
if (zf) zoom(zf);
if (/selftest/.test(h)) {
  try { mark(selftest()); } catch (e) { mark('ftflame-selftest FAIL: ' + e.message); }
}
window.ftflame = { zoom: function (i) { return zoom(frames[i]); }, unzoom: unzoom,
  search: search, clearSearch: clearSearch, frames: frames };
})();
