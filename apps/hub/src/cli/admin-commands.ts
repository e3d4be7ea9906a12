import { Command, Option } from "commander";
import { CliError, type AdminClient } from "@talkide/service-kit";

interface AdminOptions {
  readonly url?: string;
  readonly token?: string;
}

export interface HubCommandDeps {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** An admin client of the running hub (from --url/--token or the defaults). */
  readonly client: (options: AdminOptions) => Promise<AdminClient>;
  /** Adds the shared --url and --token options. */
  readonly adminOptions: (command: Command) => Command;
}

interface MemberBody {
  readonly member: {
    readonly handle: string;
    readonly kind: string;
    readonly agentId: string | null;
  };
  readonly token: string | null;
}

const roleOption = () =>
  new Option(
    "--role <role>",
    "role in #general (default: owner for the first person, else member)",
  ).choices(["owner", "admin", "member"]);

const collect = (value: string, previous: readonly string[]): string[] => [...previous, value];

/** `talkide-hub member|token|group ...`: administers a running hub through its admin API. */
export function registerAdminCommands(program: Command, deps: HubCommandDeps): void {
  const hub = program;
  const member = hub.command("member").description("add and list hub members");

  deps
    .adminOptions(
      member
        .command("add")
        .description(
          "add a person (prints their ticlawk token once) or an agent registered with the hub's daemon",
        )
        .addOption(
          new Option("--human <handle>", "add a person with this handle").conflicts("agent"),
        )
        .addOption(new Option("--agent <agentId>", "add the daemon agent with this id"))
        .option("--handle <handle>", "the agent's handle on the hub (default: its agent id)")
        .addOption(roleOption())
        .option("--no-general", "do not join #general"),
    )
    .action(
      async (
        options: AdminOptions & {
          human?: string;
          agent?: string;
          handle?: string;
          role?: string;
          general: boolean;
        },
      ) => {
        if ((options.human === undefined) === (options.agent === undefined)) {
          throw new CliError(
            "invalid_arguments",
            "Give exactly one of --human <handle> or --agent <agentId>.",
          );
        }
        const api = await deps.client(options);
        const common = { joinGeneral: options.general, generalRole: options.role ?? null };
        const body =
          options.human !== undefined
            ? { kind: "human", handle: options.human, ...common }
            : { kind: "agent", agentId: options.agent, handle: options.handle ?? null, ...common };
        const { body: created } = await api.request<MemberBody>(
          "POST",
          "/hub/v1/admin/members",
          body,
        );
        if (created.token !== null) {
          deps.out(`${created.token}\n`);
          deps.err(
            `@${created.member.handle} added; the token above is shown only this once. Use it as TICLAWK_TOKEN for ticlawk.\n`,
          );
        } else {
          deps.out(`@${created.member.handle} added (agent ${created.member.agentId ?? ""})\n`);
        }
      },
    );

  deps
    .adminOptions(member.command("list").description("list hub members"))
    .action(async (options: AdminOptions) => {
      const api = await deps.client(options);
      const { body } = await api.request<{ members: MemberBody["member"][] }>(
        "GET",
        "/hub/v1/admin/members",
      );
      if (body.members.length === 0) deps.out("no members yet\n");
      for (const m of body.members)
        deps.out(`@${m.handle}\t${m.kind}${m.agentId === null ? "" : `\t${m.agentId}`}\n`);
    });

  deps
    .adminOptions(
      hub
        .command("token <handle>")
        .description("print a new ticlawk token for a member (shown once)"),
    )
    .action(async (handle: string, options: AdminOptions) => {
      const api = await deps.client(options);
      const { body } = await api.request<MemberBody>(
        "POST",
        `/hub/v1/admin/members/${encodeURIComponent(handle.replace(/^@/, ""))}/tokens`,
      );
      deps.out(`${body.token ?? ""}\n`);
      deps.err(`new token for @${body.member.handle}; it is shown only this once\n`);
    });

  const group = hub.command("group").description("create groups and manage who is in them");
  deps
    .adminOptions(
      group
        .command("create <name>")
        .description("create a group")
        .option("--description <text>", "the group's purpose, shown to agents")
        .option("--owner <handle>", "an owner (repeatable)", collect, [])
        .option("--admin <handle>", "an admin (repeatable)", collect, [])
        .option("--member <handle>", "a member (repeatable)", collect, []),
    )
    .action(
      async (
        name: string,
        options: AdminOptions & {
          description?: string;
          owner: string[];
          admin: string[];
          member: string[];
        },
      ) => {
        const api = await deps.client(options);
        const members = [
          ...options.owner.map((handle) => ({ handle, role: "owner" })),
          ...options.admin.map((handle) => ({ handle, role: "admin" })),
          ...options.member.map((handle) => ({ handle, role: "member" })),
        ].map((m) => ({ ...m, handle: m.handle.replace(/^@/, "") }));
        await api.request("POST", "/hub/v1/admin/groups", {
          name: name.replace(/^#/, ""),
          description: options.description ?? null,
          members,
        });
        deps.out(`#${name.replace(/^#/, "")} created with ${members.length} member(s)\n`);
      },
    );

  deps
    .adminOptions(
      group
        .command("add <name> <handle>")
        .description("add a member to a group, or change their role")
        .addOption(
          new Option("--role <role>", "their role in the group")
            .choices(["owner", "admin", "member"])
            .default("member"),
        ),
    )
    .action(async (name: string, handle: string, options: AdminOptions & { role: string }) => {
      const api = await deps.client(options);
      const path = `/hub/v1/admin/groups/${encodeURIComponent(name.replace(/^#/, ""))}/members/${encodeURIComponent(handle.replace(/^@/, ""))}`;
      const { body } = await api.request<{ group: string; handle: string; role: string }>(
        "PUT",
        path,
        {
          role: options.role,
        },
      );
      deps.out(`@${body.handle} is ${body.role} of #${body.group}\n`);
    });

  deps
    .adminOptions(
      group.command("remove <name> <handle>").description("remove a member from a group"),
    )
    .action(async (name: string, handle: string, options: AdminOptions) => {
      const api = await deps.client(options);
      const path = `/hub/v1/admin/groups/${encodeURIComponent(name.replace(/^#/, ""))}/members/${encodeURIComponent(handle.replace(/^@/, ""))}`;
      const { body } = await api.request<{ group: string; handle: string }>("DELETE", path);
      deps.out(`@${body.handle} removed from #${body.group}\n`);
    });
}
