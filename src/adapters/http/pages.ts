// Every page a person uses, loaded on demand through the door's loadPages(): `holdfast serve`
// answers /mcp before this code (JSX pages, the console, passkeys) is loaded.
export { mountLegacyApprovalLinks } from './approval-links.js';
export { mountConsentPages } from './consent-pages.js';
export { consoleApp } from './console/console-app.js';
export { mountConsoleAssets } from './console/console-assets.js';
export { consolePage } from './console/console-page.js';
export { showDevSections } from './console/shell.js';
export { mountPasskeyPages } from './passkey-pages.js';
export { mountDevPaymentForm } from './payment-form.js';
export { mountProviderSignInPages } from './provider-sign-in-pages.js';
export { mountSignInPages } from './sign-in-pages.js';
