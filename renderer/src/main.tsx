import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.js";
import { useSession } from "./stores/session.js";
import "./styles.css";

// Before the first render, so the token leaves the address bar as early as possible.
useSession.getState().start();

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
