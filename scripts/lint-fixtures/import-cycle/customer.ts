import { invoiceOf } from "./invoice.ts";

export interface Customer {
  readonly name: string;
}

export const firstInvoice = (customer: Customer): string => invoiceOf(customer);
