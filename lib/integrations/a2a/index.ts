export { toA2ASkill, toA2ASkills } from "./agent-skills";
