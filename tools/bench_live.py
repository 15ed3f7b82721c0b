#!/usr/bin/env python3
# bench_live.py - latency of `karuta-ref live` on a video played at real speed:
# frame capture -> its events processed/written (from DIR/summary.json, measured per
# frame inside live) and a reading's settle -> its ruling on the page (a server-sent
# events client here, on the same machine clock). Also checks live keeps real time.
# Usage: tools/bench_live.py KARUTA_REF VIDEO MATCH.jsonl [OUT_DIR] [--hold-ms N]
# SPDX-License-Identifier: MIT
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def sse_client(port, got, stop):
    """Collects (arrival realtime ms, event, data) until stop is set."""
    for _ in range(100):
        try:
            c = socket.create_connection(('127.0.0.1', port), timeout=0.5)
            break
        except OSError:
            time.sleep(0.1)
    else:
        return
    c.sendall(b'GET /events HTTP/1.1\r\nHost: x\r\n\r\n')
    c.settimeout(0.5)
    buf = b''
    ev = None
    while not stop.is_set():
        try:
            d = c.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not d:
            break
        now = time.time() * 1000
        buf += d
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            line = line.decode('utf-8', 'replace')
            if line.startswith('event: '):
                ev = line[7:]
            elif line.startswith('data: ') and ev:
                got.append((now, ev, line[6:]))
    c.close()


def main():
    args = [a for a in sys.argv[1:]]
    hold = []
    if '--hold-ms' in args:
        i = args.index('--hold-ms')
        hold = ['--hold-ms', args[i + 1]]
        del args[i:i + 2]
    if len(args) < 3:
        sys.exit(__doc__ if __doc__ else 'usage: bench_live.py KARUTA_REF VIDEO MATCH.jsonl [OUT_DIR]')
    exe, video, match = args[:3]
    out = args[3] if len(args) > 3 else tempfile.mkdtemp(prefix='bench_live_')
    port = free_port()
    cmd = [exe, 'live', '--source', 'filesrc location=%s ! decodebin' % os.path.abspath(video),
           '--match', match, '--out', out, '--http', str(port), '--exit-on-eof'] + hold
    got, stop = [], threading.Event()
    t = threading.Thread(target=sse_client, args=(port, got, stop))
    t0 = time.time()
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    t.start()
    _, err = p.communicate()
    wall = time.time() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru.ru_utime + ru.ru_stime
    stop.set()
    t.join()
    if p.returncode != 0:
        sys.stderr.write(err)
        sys.exit('live failed (%d)' % p.returncode)
    summ = json.load(open(os.path.join(out, 'summary.json')))
    settle, final, decided, seen = [], [], [], set()
    for now, ev, data in got:
        if ev != 'ruling':
            continue
        r = json.loads(data)
        if 'settle_wall_ms' in r and not r.get('final', True):
            settle.append(now - r['settle_wall_ms'])
        if 'decided_wall_ms' in r and not r.get('final', True) and (r['seq'], r['decided_wall_ms']) not in seen:
            seen.add((r['seq'], r['decided_wall_ms']))  # first time this decision shows
            decided.append(now - r['decided_wall_ms'])
        if 'final_wall_ms' in r and r.get('final'):
            final.append(now - r['final_wall_ms'])
    lat = summ['latency_ms']
    print('command: %s' % ' '.join(cmd))
    print('source: %.1f s of video, %d frames; wall %.1f s; live used %.1f s of CPU (%.0f%% of one core over '
          'the source time)' % (summ['duration_s'], summ['frames'], wall, cpu, 100 * cpu / max(summ['duration_s'], 1e-9)))
    for key, what in (('capture_to_processed', "frame's capture (source clock) -> processed, due lines written"),
                      ('arrival_to_processed', 'frame handed over by GStreamer -> processed (work only)')):
        c = lat[key]
        print('%s (ms): p50 %.2f  p95 %.2f  p99 %.2f  max %.2f' % (what, c['p50'], c['p95'], c['p99'], c['max']))
    w = lat['observation_capture_to_written']
    print("observation's frame captured -> the observation written to events.jsonl, in time order (ms): "
          "n %d  p50 %.1f  p99 %.1f  max %.1f  (extra --hold-ms %.0f)" % (w['n'], w['p50'], w['p99'], w['max'],
                                                                          lat['extra_hold']))
    w = lat['observation_written_source_delay']
    print('  of which in source time (newest frame when written - observation time; load-independent): '
          'p50 %.1f  p99 %.1f  max %.1f ms' % (w['p50'], w['p99'], w['max']))
    rl = summ.get('record_latency_ms')
    if rl:
        print('records written to events.jsonl during frames (ms, p50 / p95 / max):')
        print('  (a) pipeline: capture of the frame whose processing released the record -> its line flushed')
        print('      (to the kernel: readers see it, a crash of live loses nothing); durable: -> fdatasync done')
        print('  (b) event: capture of the record\'s own time (first frame at or after t_us) -> flushed')
        print('  %-14s %5s  %-24s %-24s %-24s' % ('records', 'n', '(a) pipeline', '(a) to durable', '(b) event'))

        def q(d):
            return '-' if d['p50'] is None else '%.1f / %.1f / %.1f' % (d['p50'], d['p95'], d['max'])
        for g in rl['groups']:
            print('  %-14s %5d  %-24s %-24s %-24s' % (g['records'], g['n'], q(g['pipeline']),
                                                     q(g.get('pipeline_durable', g['pipeline'])), q(g['event'])))
        print('  records released only at the end of the source (not timed): %d' % rl['released_at_end'])
    if settle:
        settle.sort()
        print('settle (capture of its frame) -> ruling on the page (ms): n %d  median %.0f  max %.0f'
              % (len(settle), settle[len(settle) // 2], settle[-1]))
    else:
        print('settle -> ruling on the page: no settle was detected in this footage')
    if decided:
        decided.sort()
        print('deciding contact (capture of its frame) -> provisional ruling on the page (ms): n %d  median %.0f  max %.0f'
              % (len(decided), decided[len(decided) // 2], decided[-1]))
    if final:
        final.sort()
        print('moment a ruling became final (its shimo_start frame) -> on the page (ms): n %d  median %.0f  max %.0f'
              % (len(final), final[len(final) // 2], final[-1]))
    print('max lag behind real time: %.1f ms (frame at %.3f s; in the first second %.1f ms, after it %.1f ms); '
          'late observations: %d; rulings: %d'
          % (summ['max_lag_ms'], summ.get('max_lag_at_s', -1), summ.get('max_lag_first_1s_ms', -1),
             summ.get('max_lag_after_1s_ms', -1), summ['late_observations'], summ['rulings']))
    print('detector reports an observation at most %.0f ms after its time (the horizon waits for it)'
          % summ['observation_report_delay_ms_max'])
    rdir = os.path.join(out, 'replay')
    reps = sorted(f for f in os.listdir(rdir) if f.endswith('.mp4')) if os.path.isdir(rdir) else []
    for f in reps:
        info = subprocess.run(['ffprobe', '-v', 'error', '-count_frames', '-select_streams', 'v', '-show_entries',
                               'stream=width,height,nb_read_frames', '-of', 'csv=p=0', os.path.join(rdir, f)],
                              capture_output=True, text=True).stdout.strip()
        print('replay %s: %s (width,height,frames)' % (f, info or 'undecodable'))
    rep_ev = [(now, json.loads(data)) for now, ev, data in got if ev == 'replay']
    print('replays announced on the page: %d' % len(rep_ev))
    with open('/proc/loadavg') as f:
        print('machine load average while measuring: %s' % f.read().split()[0])


if __name__ == '__main__':
    main()
