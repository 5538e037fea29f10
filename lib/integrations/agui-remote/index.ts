export {
  addAguiSource,
  forgetAguiSource,
  refreshAguiSource,
  registerRemoteAgent,
  remoteAgentName,
  startAguiRemote,
  registerAguiSources,
  testAguiEndpoint,
  REMOTE_AGENT_PREFIX,
  type AguiRemoteDeps,
  type AguiSourceInput,
  type AguiTestResult,
} from "./agui-sources";
export { remoteAguiAgent, DEFAULT_REMOTE_LIMITS, type RemoteEndpoint, type RemoteRunLimits } from "./remote-agent";
export { AguiEndpointUnreachable, AguiSourceOptionsError, RemoteAgentFailure, type RemoteFailureCode } from "./remote-failure";
export { openRemoteInterrupts, REMOTE_SURFACE } from "./remote-interrupts";
