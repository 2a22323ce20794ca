import type { HandlerTable } from '../core/operations.js';
import { paymentHandlers } from './payment-handlers.js';
import { usageHandlers } from './usage-handlers.js';

export { assertAllowanceLeft } from './allowance.js';
export { providerOf } from './payment-handlers.js';

/** Every usage and billing operation of spec section 4. */
export const billingHandlers: HandlerTable = { ...usageHandlers, ...paymentHandlers };
