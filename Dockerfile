# syntax=docker/dockerfile:1.7
# One image for every app; the command picks the app:
#   node scripts/run-dist.js dist/apps/<app>/src/main.js
# Build: docker build -t svc-platform:local .
# Node 22 LTS: the OpenID provider (oidc-provider 9) supports LTS releases from 22 on (it runs, with a
# warning, on the 20.19+ that development machines may still have).
ARG NODE_IMAGE=node:22-bookworm-slim

# ---- deps: full install (dev dependencies are needed to build) ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# ---- build: generate contracts (buf) and compile to dist/ ----
FROM deps AS build
COPY tsconfig.base.json tsconfig.build.json buf.yaml buf.gen.yaml ./
COPY proto ./proto
COPY libs ./libs
COPY apps ./apps
COPY deploy ./deploy
COPY tools ./tools
RUN npm run build

# ---- prod-deps: runtime dependencies only ----
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ---- runtime: slim, non-root, read-only friendly ----
FROM ${NODE_IMAGE} AS runtime
# A young generation of 2 x 32 MiB (V8's default is 2 x 16 MiB): a request allocates short-lived
# objects (bodies, events, signatures), and the smaller default promotes and scavenges them twice
# as often. See ARCHITECTURE.md, Performance.
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080 \
    NODE_OPTIONS=--max-semi-space-size=32
WORKDIR /app
# Files are owned by root and not writable by the runtime user; the app writes nothing to disk.
COPY package.json tsconfig.base.json ./
COPY scripts/run-dist.js ./scripts/run-dist.js
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The `node` user of the official image (uid/gid 1000); numeric so runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
CMD ["node", "scripts/run-dist.js", "dist/apps/decision-gateway/src/main.js"]
