// The console's one script: everything works without it. It keeps the approvals queue live
// (short polling of a server-rendered fragment), counts down expiries, tells the server the
// browser's zone, and copies a new token to the clipboard.
(() => {
  // The server writes every time, in English; it only needs to know the zone the browser is in
  // (a person's own setting on the account page takes precedence).
  const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const hint = `holdfast_tz=${encodeURIComponent(viewerZone)}`;
  if (viewerZone && !document.cookie.split('; ').includes(hint))
    document.cookie = `${hint}; path=/; max-age=31536000; samesite=lax`;

  function countdowns() {
    for (const el of document.querySelectorAll('time[data-countdown]')) {
      const left = Date.parse(el.getAttribute('datetime')) - Date.now();
      if (!Number.isFinite(left)) continue;
      // The server's words ("at Thu 3 Dec 2026, 14:05 (Shanghai)") stay beside the countdown.
      el.dataset.at ??= el.textContent.trim();
      if (left <= 0) {
        el.textContent = `expired ${el.dataset.at}`;
        continue;
      }
      const s = Math.floor(left / 1000);
      const m = Math.floor(s / 60);
      const span =
        m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m} min ${String(s % 60).padStart(2, '0')} s`;
      el.textContent = `in ${span}, ${el.dataset.at}`;
    }
  }

  const queue = document.querySelector('[data-live-queue]');
  async function refreshQueue() {
    try {
      const answer = await fetch(queue.getAttribute('data-live-queue'), {
        headers: { accept: 'text/html' },
        credentials: 'same-origin',
      });
      if (!answer.ok) return;
      const text = await answer.text();
      if (text !== queue.dataset.last) {
        queue.dataset.last = text;
        const fresh = new DOMParser().parseFromString(text, 'text/html').body;
        queue.replaceChildren(...fresh.childNodes);
      }
    } catch {
      // Offline for a moment: the next poll tries again.
    }
  }

  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const target = document.getElementById(button.getAttribute('data-copy'));
      await navigator.clipboard.writeText(target.textContent.trim());
      button.textContent = 'Copied';
    });
  }

  countdowns();
  setInterval(countdowns, 1000);
  if (queue) setInterval(refreshQueue, 2000);
})();
