// cull_commands.comp: after cull.comp, writes each level's visible count into the instance count
// of that level's indirect draw commands (one per material), in one dispatch: the CPU issues the
// same few calls whatever the number of materials and levels.

layout(local_size_x = 64) in;

layout(std430, binding = 3) readonly buffer CullCounters { uint cull_counters[]; };
layout(std430, binding = 4) buffer CullCommands { uint cull_commands[]; };

uniform uint u_counter_base;   // this pass's first counter
uniform uint u_command_base;   // this pass's first command, in uints
uniform uint u_command_count;  // materials x levels
uniform uint u_levels;         // levels per material in the command layout
uniform uint u_levels_drawn;   // levels the cull pass used (1 without LOD)

void main() {
  uint c = gl_GlobalInvocationID.x;
  if (c >= u_command_count) return;
  uint level = c % u_levels;
  cull_commands[u_command_base + c * 5u + 1u] = level < u_levels_drawn ? cull_counters[u_counter_base + level] : 0u;
}
