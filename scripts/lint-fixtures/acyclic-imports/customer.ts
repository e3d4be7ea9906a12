export interface Customer {
  readonly name: string;
}
