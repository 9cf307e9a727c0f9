import { defineConfig } from 'vite';

// The engine's worker is an ES module with imports of its own: build workers as ES modules.
export default defineConfig({ worker: { format: 'es' }, build: { target: 'es2022' } });
