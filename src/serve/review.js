/* review.js - clip players with frame stepping on the review page (embedded into
 * index.html). Open the page with #selftest to run the browser test hook, which
 * writes its findings as JSON into <pre id="kr-selftest">. SPDX-License-Identifier: MIT */
'use strict';
(function () {
  var players = Array.prototype.slice.call(document.querySelectorAll('.player'));
  var active = null;

  function fmt(us) {
    var neg = us < 0; if (neg) us = -us;
    var ms = Math.round(us / 1000), m = Math.floor(ms / 60000), s = Math.floor(ms / 1000) % 60;
    return (neg ? '-' : '') + m + ':' + (s < 10 ? '0' : '') + s + '.' + ('00' + (ms % 1000)).slice(-3);
  }
  function info(p) {
    return { v: p.querySelector('video'), fps: parseFloat(p.dataset.fps) || 30,
             start: parseFloat(p.dataset.startUs) || 0, slow: parseFloat(p.dataset.slow) || 1 };
  }
  function frameOf(p) { var i = info(p); return Math.floor(i.v.currentTime * i.fps + 1e-4); }
  function show(p) {
    var i = info(p), tc = p.querySelector('.tc'), f = frameOf(p);
    var src = i.start + f / i.fps * 1e6 / i.slow; /* the shown frame's own time */
    tc.textContent = 'frame ' + f + ' \u00b7 ' + fmt(src);
    p.querySelector('[data-act="play"]').textContent = i.v.paused ? '\u25b6 play' : '\u275a\u275a pause';
  }
  function activate(p) {
    if (active === p) return;
    if (active) active.classList.remove('active');
    active = p; if (p) p.classList.add('active');
  }
  /* One frame forward (n=1) or back (n=-1): land a quarter frame into the
   * target frame so that rounding never shows the neighbour. */
  function step(p, n) {
    var i = info(p), v = i.v;
    v.pause();
    var f = Math.max(0, frameOf(p) + n);
    var t = (f + 0.25) / i.fps;
    if (isFinite(v.duration) && t > v.duration) t = Math.max(0, v.duration - 0.5 / i.fps);
    v.currentTime = t;
  }
  function seekSource(p, tus) {
    var i = info(p);
    i.v.pause();
    i.v.currentTime = Math.max(0, (tus - i.start) / 1e6 * i.slow);
  }
  players.forEach(function (p) {
    var v = p.querySelector('video');
    ['timeupdate', 'seeked', 'play', 'pause', 'loadedmetadata'].forEach(function (e) {
      v.addEventListener(e, function () { show(p); });
    });
    p.addEventListener('pointerdown', function () { activate(p); });
    p.addEventListener('focusin', function () { activate(p); });
    v.addEventListener('click', function () { if (v.paused) v.play(); else v.pause(); });
    p.querySelectorAll('button[data-act]').forEach(function (b) {
      b.addEventListener('click', function () {
        activate(p);
        var a = b.dataset.act;
        if (a === 'play') { if (v.paused) v.play(); else v.pause(); } else step(p, parseInt(a, 10));
      });
    });
    p.querySelector('select[data-act="rate"]').addEventListener('change', function (e) {
      v.playbackRate = parseFloat(e.target.value);
    });
    var art = p.closest('article');
    if (art) art.querySelectorAll('button.seek').forEach(function (b) {
      b.addEventListener('click', function () {
        activate(p);
        seekSource(p, parseFloat(b.closest('tr').dataset.tUs));
        p.scrollIntoView({ block: 'nearest' });
      });
    });
  });
  if (players.length) activate(players[0]);
  /* When the judge scrolls, the clip in view becomes the one the keys drive. */
  if ('IntersectionObserver' in window) {
    var io = new IntersectionObserver(function (es) {
      es.forEach(function (e) { if (e.isIntersecting && e.intersectionRatio > 0.6) activate(e.target); });
    }, { threshold: [0.6] });
    players.forEach(function (p) { io.observe(p); });
  }
  document.addEventListener('keydown', function (e) {
    var t = e.target && e.target.tagName;
    if (!active || t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA') return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      step(active, e.key === 'ArrowRight' ? 1 : -1); e.preventDefault();
    } else if (e.key === ' ') {
      var v = active.querySelector('video'); if (v.paused) v.play(); else v.pause(); e.preventDefault();
    }
  });

  /* ---- browser test hook ---- */
  if (location.hash.indexOf('selftest') < 0) return;
  function wait(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function once(el, ev, ms) {
    return new Promise(function (res) {
      var done = false;
      function fin(ok) { if (!done) { done = true; el.removeEventListener(ev, h); res(ok); } }
      function h() { fin(true); }
      el.addEventListener(ev, h); setTimeout(function () { fin(false); }, ms);
    });
  }
  async function run() {
    var out = { rulings: [], review: [], details: [], players: players.length, errors: [] };
    document.querySelectorAll('[data-ruling-seq]').forEach(function (e) { out.rulings.push(+e.dataset.rulingSeq); });
    document.querySelectorAll('[data-review-seq]').forEach(function (e) { out.review.push(+e.dataset.reviewSeq); });
    document.querySelectorAll('[data-detail-seq]').forEach(function (e) { out.details.push(+e.dataset.detailSeq); });
    out.sheets = document.querySelectorAll('.sheet img').length;
    if (players.length) {
      var p = players[0], i = info(p), v = i.v;
      out.fps = i.fps;
      if (v.readyState < 2) await once(v, 'loadeddata', 8000);
      out.readyState = v.readyState; out.duration = v.duration; out.videoWidth = v.videoWidth;
      if (v.error) out.errors.push('media error ' + v.error.code);
      try {
        await v.play();
        for (var k = 0; k < 40 && v.currentTime < 0.2; k++) await wait(50);
        out.playedTo = v.currentTime;
      } catch (e) { out.errors.push('play: ' + e.name); }
      v.pause();
      v.currentTime = 5.25 / i.fps; await once(v, 'seeked', 3000);
      var before = v.currentTime, f0 = frameOf(p);
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      await once(v, 'seeked', 3000);
      out.stepDelta = v.currentTime - before; out.stepFrames = frameOf(p) - f0;
      before = v.currentTime;
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
      await once(v, 'seeked', 3000);
      out.backDelta = v.currentTime - before;
      out.timecode = p.querySelector('.tc').textContent;
    }
    /* contact sheets are large PNGs: give them time to decode before counting */
    var ims = Array.prototype.slice.call(document.querySelectorAll('.sheet img'));
    for (var w = 0; w < 100 && ims.some(function (im) { return !im.complete; }); w++) await wait(50);
    out.sheetsLoaded = ims.filter(function (im) { return im.complete && im.naturalWidth > 0; }).length;
    var pre = document.getElementById('kr-selftest');
    pre.textContent = JSON.stringify(out);
    pre.dataset.done = '1';
  }
  run().catch(function (e) {
    var pre = document.getElementById('kr-selftest');
    pre.textContent = JSON.stringify({ errors: ['selftest: ' + e] }); pre.dataset.done = '1';
  });
})();
