// Closes the cycle order → customer → invoice → order with a type-only import: it counts.
import type { Order } from "./order.ts";
import type { Customer } from "./customer.ts";

export const invoiceOf = (customer: Customer): string => `Invoice for ${customer.name}`;
export type Billed = Order;
