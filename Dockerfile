# The service's image: `docker compose up --build` (docker-compose.yml) runs three replicas of it.

# Build: compile better-sqlite3 (from source when no prebuilt binary fits) and the TypeScript, then drop
# the development dependencies so only what the service runs on is copied on.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY domain ./domain
COPY application ./application
COPY projections ./projections
COPY infrastructure ./infrastructure
COPY api ./api
RUN npm run build && npm prune --omit=dev

# Runtime: the built service and its production dependencies, run by an unprivileged user.
FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends libespeak-ng1 \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  PORT=3000 \
  DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The code stays owned by root (read-only to the service); only the data directory is the service's.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: the service itself receives SIGTERM and drains (up to 30 s) before it exits.
CMD ["node", "dist/api/main.js"]
