/**
 * Layering rules (`npm run lint:layers`, part of `npm test`), written from the design's data flow:
 * page → client → transport → server → engine → protocol, with storage and models implementing the
 * engine's interfaces, and the dev code (tools/, scripts/, bench/, e2e/, test/) outside the product.
 * Every rule is an error: a regression fails CI, not a later review.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'protocol-imports-nothing-of-ours',
      comment: 'src/protocol is the vocabulary everyone shares; it imports nothing from the rest of the project.',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { path: '^(src|cli|bridges|tools|scripts|bench|e2e|test|examples)/', pathNot: '^src/protocol/' },
    },
    {
      name: 'engine-below-the-rest',
      comment:
        'src/engine knows retrieval, not JSON-RPC or the page: it imports neither server, client, app, worker, transport, ' +
        'storage nor models (it depends on Embedder/Reranker/IndexStore interfaces that models and storage implement).',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: '^src/(engine|protocol|util)/' },
    },
    {
      name: 'src-imports-no-dev-code',
      comment: 'The product never imports the dev code (or the Node programs built on it).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tools|scripts|bench|e2e|test|examples|bridges|cli)/' },
    },
    {
      name: 'tools-lib-is-the-bottom-of-the-dev-code',
      comment: 'tools/ holds what scripts, bench, e2e and test share; it imports none of them.',
      severity: 'error',
      from: { path: '^tools/' },
      to: { path: '^(scripts|bench|e2e|test|examples)/' },
    },
    {
      name: 'no-folder-cycles',
      comment: 'No folder imports one that imports it back (directly or round a longer loop).',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'No two modules import each other, even through a type: a shared type goes to a leaf file.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^(dist|lib|public)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
