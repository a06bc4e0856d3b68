// The passkey buttons of /login and /account. Served from this site only (CSP script-src 'self');
// the WebAuthn calls are @simplewebauthn/browser's, loaded before this file as SimpleWebAuthnBrowser.
/* global SimpleWebAuthnBrowser */
(() => {
  const webAuthn = SimpleWebAuthnBrowser;
  const message = document.getElementById('passkey-message');
  const say = (text) => {
    if (message) message.textContent = text;
  };

  // Forms are urlencoded here, like every other form a person posts.
  async function post(url, fields) {
    const response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.message || `The server answered ${response.status}.`);
    return body;
  }

  const refusedByPerson = (error) => error && error.name === 'NotAllowedError';

  const signIn = document.getElementById('passkey-sign-in');
  const add = document.getElementById('passkey-add');
  if (!webAuthn.browserSupportsWebAuthn()) {
    for (const button of [signIn, add]) if (button) button.disabled = true;
    say('This browser cannot use passkeys.');
    return;
  }

  signIn?.addEventListener('click', async () => {
    const { csrf, next } = signIn.dataset;
    try {
      say('Waiting for your passkey…');
      const optionsJSON = await post('/login/passkey/options', { csrf });
      const answer = await webAuthn.startAuthentication({ optionsJSON });
      const done = await post('/login/passkey', { csrf, next, response: JSON.stringify(answer) });
      location.assign(done.next);
    } catch (error) {
      say(refusedByPerson(error) ? 'No passkey was used.' : error.message);
    }
  });

  add?.addEventListener('click', async () => {
    const { csrf } = add.dataset;
    const name = document.getElementById('passkey-name')?.value ?? '';
    try {
      say('Waiting for your authenticator…');
      const optionsJSON = await post('/account/passkeys/options', { csrf });
      const answer = await webAuthn.startRegistration({ optionsJSON });
      await post('/account/passkeys', { csrf, name, response: JSON.stringify(answer) });
      location.reload();
    } catch (error) {
      say(refusedByPerson(error) ? 'No passkey was created.' : error.message);
    }
  });
})();
