// The entry point of /embed/widget.js: loading the script defines <agui-chat>.
import { defineAguiChat } from "./agui-chat-element";

defineAguiChat();
