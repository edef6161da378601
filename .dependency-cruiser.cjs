/**
 * The architecture, checked on every `npm test`: the domain is pure, ports depend only on the
 * domain, use cases never see an adapter, and the HTTP edge reaches the world through use cases.
 * Only src/compose.ts (the composition root) and src/cli.ts may pick adapters. The web front end
 * (web/src) is a separate layer that knows the server only through its HTTP API.
 * The drill (src/drill) is an edge like the CLI: it reaches a server over HTTP, never through the layers.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing but itself: no node: modules, no packages, no other layer.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'ports-depend-on-domain-only',
      severity: 'error',
      from: { path: '^src/ports/' },
      to: { pathNot: '^src/(domain|ports)/' },
    },
    {
      name: 'app-uses-ports-not-adapters',
      comment: 'Use cases talk to storage, payments, clocks through ports; never to an adapter, the edge or a driver.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: ['^src/(adapters|http)/', '^src/(compose|cli|config)\\.ts$', 'node_modules/(better-sqlite3|fastify|prom-client)'] },
    },
    {
      name: 'adapters-do-not-reach-up',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: ['^src/(app|http)/', '^src/(compose|cli)\\.ts$'] },
    },
    {
      name: 'http-does-not-pick-adapters',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: ['^src/adapters/', '^src/(compose|cli)\\.ts$'] },
    },
    {
      name: 'http-goes-through-use-cases',
      comment: [
        'The header above: the HTTP edge reaches the world through use cases. It may not import the store port',
        '(src/ports/engine: operations, outcomes, store errors) nor the read model and its renderers',
        '(app/seat-map-cache, app/seat-map-render): a route asks a use case (app/*.ts) for what it sends.',
        'test/http/edge-boundary.test.ts checks the other half: no route calls ctx.store or ctx.seatMaps.',
      ].join(' '),
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: ['^src/ports/engine/', '^src/app/seat-map-(cache|render)\\.ts$'] },
    },
    {
      name: 'lib-is-generic',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/(domain|ports|adapters|app|http)/' },
    },
    {
      name: 'web-talks-http-only',
      comment: 'The web front end (web/) is its own layer: it reaches the server through the HTTP API only, never by importing server code.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(src|test|scripts|bench)/' },
    },
    {
      name: 'server-does-not-import-web',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'drill-is-an-edge',
      comment: 'The drill talks to a server over HTTP only: it imports no layer, and no layer imports it (only src/cli.ts starts it).',
      severity: 'error',
      from: { path: '^src/drill/' },
      to: { path: ['^src/(domain|ports|adapters|app|http|lib)/', '^src/(compose|config)\\.ts$'] },
    },
    {
      name: 'nothing-imports-the-drill',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/drill/', '^src/cli\\.ts$'] },
      to: { path: '^src/drill/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'no-orphans', severity: 'error', from: { orphan: true, pathNot: ['\\.d\\.ts$', '^src/cli\\.ts$'] }, to: {} },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js'] },
    includeOnly: '^(src|web/src|node_modules)/',
  },
};
