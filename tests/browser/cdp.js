// cdp.js - a minimal DevTools-protocol driver for the browser tests, over
// --remote-debugging-pipe (works with Debian's node 18; no WebSocket needed), in real
// time (the live page keeps an EventSource open, so no virtual clock). Starts headless
// Chromium, opens URL, waits until EXPR (a JS expression) is truthy or TIMEOUT_MS pass,
// prints its value as JSON, and optionally writes a PNG screenshot.
// Usage: node cdp.js URL EXPR TIMEOUT_MS [SHOT.png [WxH]]
// SPDX-License-Identifier: MIT
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const [url, expr, timeoutMs, shot, size] = process.argv.slice(2);
const prof = fs.mkdtempSync(path.join(os.tmpdir(), 'kr-cdp-'));
const [w, h] = (size || '1280x900').split('x').map(Number);
const chrome = spawn('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio', '--autoplay-policy=no-user-gesture-required',
  `--window-size=${w},${h}`, '--remote-debugging-pipe', `--user-data-dir=${prof}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
let done = false, exitCode = 1, err = '';
chrome.stderr.on('data', (d) => { err += d; });
function cleanup() {
  try { fs.rmSync(prof, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); } catch (e) { /* best effort */ }
  process.exit(exitCode);
}
function finish(code, msg) {
  if (done) return; done = true; exitCode = code;
  if (msg) console.error(msg);
  chrome.removeAllListeners('exit');
  chrome.on('exit', () => setTimeout(cleanup, 300));
  chrome.kill('SIGTERM');
  setTimeout(cleanup, 3000);
}
chrome.on('exit', (c) => finish(1, 'cdp: chromium exited ' + c + '\n' + err.slice(-500)));
setTimeout(() => finish(1, 'cdp: overall timeout'), Number(timeoutMs) + 20000);

const out = chrome.stdio[3], inp = chrome.stdio[4];
let id = 0, buf = '';
const pending = new Map();
function send(method, params = {}, sessionId) {
  return new Promise((res, rej) => {
    const i = ++id; pending.set(i, { res, rej });
    const msg = { id: i, method, params };
    if (sessionId) msg.sessionId = sessionId;
    out.write(JSON.stringify(msg) + '\0');
  });
}
inp.on('data', (d) => {
  buf += d.toString('utf8');
  let k;
  while ((k = buf.indexOf('\0')) >= 0) {
    const msg = JSON.parse(buf.slice(0, k)); buf = buf.slice(k + 1);
    if (msg.id && pending.has(msg.id)) {
      const p = pending.get(msg.id); pending.delete(msg.id);
      if (msg.error) p.rej(new Error(JSON.stringify(msg.error))); else p.res(msg.result);
    }
  }
});
(async () => {
  try {
    const { targetInfos } = await send('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page');
    const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
    await send('Page.enable', {}, sessionId);
    await send('Page.navigate', { url }, sessionId);
    const end = Date.now() + Number(timeoutMs);
    let val = null;
    while (Date.now() < end) {
      const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true }, sessionId);
      val = r.result && r.result.value;
      if (val) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    if (shot) {
      const s = await send('Page.captureScreenshot', { format: 'png' }, sessionId);
      fs.writeFileSync(shot, Buffer.from(s.data, 'base64'));
    }
    console.log(JSON.stringify(val));
    finish(val ? 0 : 1, val ? null : 'cdp: expression never became true: ' + expr);
  } catch (e) { finish(1, 'cdp: ' + e); }
})();
