// Preloaded (`node --import`) into every server the benchmark starts, svir's own CLI included.
// Plain JavaScript on purpose: a TypeScript loader (tsx) would add about 34 MB to the RSS of the
// very process whose memory is measured. It answers the harness over the IPC channel with the
// process's own CPU time and memory, and makes sure the server ends: on `exit`, when the harness
// goes away, or after BENCH_MAX_LIFETIME_MS. It ends the process with SIGTERM, so that the
// server's own shutdown runs (and `--cpu-prof` writes its profile), then hard after 5 s.

const stop = () => {
  setTimeout(() => process.exit(0), 5_000).unref();
  process.kill(process.pid, 'SIGTERM');
};

const lifetime = Number(process.env.BENCH_MAX_LIFETIME_MS);
setTimeout(stop, Number.isFinite(lifetime) && lifetime > 0 ? lifetime : 600_000).unref();

if (process.send !== undefined) {
  process.on('disconnect', stop);
  process.on('message', (message) => {
    if (typeof message !== 'object' || message === null) return;
    if (message.type === 'exit') {
      stop();
      return;
    }
    if (message.type === 'stats' && typeof message.id === 'number') {
      const cpu = process.cpuUsage();
      const memory = process.memoryUsage();
      process.send({
        type: 'stats',
        id: message.id,
        stats: {
          userUs: cpu.user,
          systemUs: cpu.system,
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          maxRssBytes: process.resourceUsage().maxRSS * 1024,
        },
      });
    }
  });
  // The channel must not keep a server alive that has otherwise finished.
  process.channel?.unref();
}
