export {
  NOTHING_ALLOWED,
  parseAllowance,
  refuseAddress,
  storedAllowance,
  refuseUrl,
  type Cidr,
  type OutboundAllowance,
} from "./address-policy";
export { AddressNotAllowed, OutboundGuard, type OutboundGuardOptions, type Resolve } from "./outbound-guard";
