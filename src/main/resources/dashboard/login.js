// The dashboard's login: posts the user and password as JSON with the X-Requested-By header
// (which a form on another site cannot send); the answer sets an HttpOnly, SameSite=Strict
// session cookie, and the dashboard takes over.
'use strict';

document.getElementById('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = document.getElementById('message');
  message.textContent = '';
  try {
    const r = await fetch(new URL('/api/login', location.origin), {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-Requested-By': 'ingest-queue-dashboard' },
      body: JSON.stringify({ username: document.getElementById('username').value, password: document.getElementById('password').value })
    });
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      message.textContent = answer.error || (r.status + ' ' + r.statusText);
      return;
    }
    location.replace(location.origin + '/');
  } catch (e) {
    message.textContent = e.message;
  }
});
