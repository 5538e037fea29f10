import type { Agent, AgentInfo } from "./agent";

/** The agents the console serves, by name; the first one added is the default. */
export class AgentCatalog {
  private readonly agents = new Map<string, Agent>();

  add(agent: Agent): this {
    this.agents.set(agent.info.name, agent);
    return this;
  }

  get(name: string): Agent | undefined {
    return this.agents.get(name);
  }

  /** Forget an agent (a removed remote source's); runs already under way keep their agent. Returns whether it was there. */
  remove(name: string): boolean {
    return this.agents.delete(name);
  }

  get default(): Agent {
    const first = this.agents.values().next().value;
    if (!first) throw new Error("No agent is registered");
    return first;
  }

  list(): AgentInfo[] {
    return [...this.agents.values()].map((a) => a.info);
  }
}
