import type { Customer } from "./customer.ts";

export interface Order {
  readonly customer: Customer;
}
