# svir in a container. Build: docker build -t svir .   Run: see README ("Run in a container").
#
# Two stages: the first compiles TypeScript with the dev dependencies, the second carries only
# the compiled program and the production dependencies, and runs as the unprivileged `node` user.

FROM node:26-slim AS build
WORKDIR /app
# Dependencies first, so that a source change does not reinstall them. --ignore-scripts: the
# package's `prepare` script builds, and the sources are not copied yet.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:26-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; no install scripts (nothing svir runs needs one, and `prepare`
# would try to build without TypeScript).
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
# The live page's files (docs/live-page.md): dist/monitor/ reads them from ../../web/.
COPY web ./web
# The config lives at one documented path; mount your own file over it (compose.yaml does).
# The default one fronts LM Studio and llama.cpp on the host; inside a container svir listens on
# every interface, so it refuses to start without a key in SVIR_API_KEYS.
COPY config/docker.yaml /etc/svir/config.yaml
ENV SVIR_CONFIG=/etc/svir/config.yaml
USER node
EXPOSE 4000
# Slim images have no curl: ask node itself. /healthz answers without an API key.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:4000/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# svir is the entrypoint, so the arguments of `docker run IMAGE ...` go to it: `docker run IMAGE
# check`, `docker run IMAGE --version`, `--port 4100`; a command the image has (`node ...`, `sh`)
# runs as given. node is PID 1 and gets the stop signal itself. config/docker.yaml gives open
# streams 7 s on a stop, well inside the engine's 10 s.
COPY scripts/docker-entrypoint.sh /usr/local/bin/svir-entrypoint
ENTRYPOINT ["svir-entrypoint"]
CMD []
