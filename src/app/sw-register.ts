/// <reference types="vite/client" />
/**
 * Registers the service worker (production builds only) and offers a safe update: a new version
 * installs and waits; the page says "update available" and reloads only when the person asks.
 */
import { byId } from './dom.ts';

export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return; // vite dev serves no sw.js
  const banner = byId('update-banner');
  const offline = byId('offline-note');
  const showWaiting = (reg: ServiceWorkerRegistration) => {
    if (!reg.waiting || !navigator.serviceWorker.controller) return; // first install: nothing to update
    banner.hidden = false;
    byId('update-reload').onclick = () => reg.waiting?.postMessage({ type: 'skip-waiting' });
  };
  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (reloading || banner.hidden) return; // only reload when the person asked for the update
    reloading = true;
    location.reload();
  });
  const sync = () => {
    offline.hidden = navigator.onLine;
  };
  window.addEventListener('online', sync);
  window.addEventListener('offline', sync);
  sync();
  void navigator.serviceWorker.register('/sw.js', { scope: '/' }).then((reg: ServiceWorkerRegistration | undefined) => {
    // Chromium driven through request interception (the bridges, scripts/measure-playground.ts)
    // has been seen to resolve with no registration: then there is nothing to offer.
    if (!reg) return;
    showWaiting(reg);
    reg.addEventListener('updatefound', () => {
      reg.installing?.addEventListener('statechange', () => showWaiting(reg));
    });
  });
}
