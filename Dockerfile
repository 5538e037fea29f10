# The AG-UI Console as a container image, for the example in docker-compose.yml.
# Build: docker build -t agui-console .    Run: see docker-compose.yml (it needs ADMIN_TOKEN).
#
# One stage with the full node_modules: start-up prepares the database with `node --import tsx`
# (scripts/prepare.ts), so tsx and the other dev dependencies are needed at run time too.
# The Debian (glibc) image matches the prebuilt better-sqlite3 and embedded-postgres binaries;
# its build tools compile better-sqlite3 where no prebuilt binary fits.
FROM node:20-bookworm

WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1

# Dependencies first, so a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci

COPY . .
RUN npm run build

# Not root at run time; the data folders below are the only places it writes.
RUN mkdir -p /var/lib/agui-console/data /var/lib/agui-console/state \
 && chown -R node:node /var/lib/agui-console /app/.next
USER node

# Inside the container the console listens on every address: the reverse proxy reaches it over
# the compose network. Off loopback the console asks for a token or a signed-in operator, so the
# anonymous local mode never applies here (see README, "Signing in off loopback").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    CONSOLE_DB=/var/lib/agui-console/data/console.db \
    CONSOLE_STATE_DIR=/var/lib/agui-console/state
EXPOSE 3000

# /api/health answers 200 while the database is usable (503 naming the fault otherwise). The Host
# 127.0.0.1 is a local name, always served.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# `npm start` without its install and build steps (done above): apply migrations, seed, then run
# scripts/server.mjs (Next's handler behind the method and path checks). node directly, not npm,
# so SIGTERM from `docker stop` reaches the server.
CMD ["node", "scripts/start.mjs", "--skip-install", "--skip-build"]
