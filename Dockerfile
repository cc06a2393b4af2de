# One image for both the API and the worker (compose picks the command). The app runs from TypeScript source
# through tsx, exactly as in development, so there is no separate build step to drift from it.
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so code changes do not invalidate the npm ci layer.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY . .
# The merchant Dashboard web app (Preact) is the one bundled thing: esbuild, under a second.
RUN npm run build:dashboard

# tsx keeps its transpile cache under /tmp, which the unprivileged user can write.
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
