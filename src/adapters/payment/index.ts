// Payment providers: the simulator in the database, and an HTTP provider that loads only when configured.
export { SimulatedPayments } from './simulated-payments.js';

export const loadHttpPayments = () => import('./http-payments.js');
export { noPayments } from './no-payments.js';
